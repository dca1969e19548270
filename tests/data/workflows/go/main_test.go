package main

import "testing"

func TestAnswer(t *testing.T) {
	if answer() != 42 {
		t.Fatal("wrong answer")
	}
}
