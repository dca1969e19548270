module example.com/llwfix

go 1.19
