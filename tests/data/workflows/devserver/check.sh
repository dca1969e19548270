#!/bin/sh
# Start the dev server, then reach it as a browser or a test would.
node server.js &
pid=$!
i=0
ok=
while [ $i -lt 100 ]; do
	if curl -s -m 2 "http://127.0.0.1:$PORT/" | grep -q 'dev server ok' &&
		curl -s -m 2 "http://[::1]:$PORT/" | grep -q 'dev server ok' &&
		curl -s -m 2 "http://localhost:$PORT/" | grep -q 'dev server ok'; then
		ok=yes
		break
	fi
	sleep 0.1
	i=$((i + 1))
done
kill "$pid"
[ -n "$ok" ]
