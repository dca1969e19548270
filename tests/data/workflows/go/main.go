package main

import "fmt"

func answer() int { return 6 * 7 }

func main() { fmt.Println(answer()) }
