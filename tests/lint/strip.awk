# C source without its comments, string and character literals (each
# literal left as "" or ''), line numbers kept: what calls remain is code.
{
	out = ""
	n = length($0)
	for (i = 1; i <= n; i++) {
		c = substr($0, i, 1)
		d = substr($0, i + 1, 1)
		if (incomment) {
			if (c == "*" && d == "/") {
				incomment = 0
				i++
			}
			continue
		}
		if (c == "/" && d == "*") {
			incomment = 1
			i++
			continue
		}
		if (c == "/" && d == "/")
			break
		if (c == "\"" || c == "'") {
			q = c
			out = out q
			for (i++; i <= n; i++) {
				c = substr($0, i, 1)
				if (c == "\\") {
					i++
					continue
				}
				if (c == q)
					break
			}
			out = out q
			continue
		}
		out = out c
	}
	print out
}
