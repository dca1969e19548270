#!/usr/bin/env python3
"""A scripted OpenAI-compatible chat completions endpoint for agent.sh.

mock-llm.py SCRIPT LOG PORTFILE [ADDR]
mock-llm.py --results LOG

SCRIPT is a JSON list of shell commands.  Each POST /v1/chat/completions
that offers tools is answered with one `bash` tool call: the command
whose index is the number of tool results the conversation holds so far;
after the last one, with a plain "done".  Requests without tools (title
generation and the like) get a short text.  Every request body is
appended to LOG (one JSON object a line, with the Authorization header
the agent sent), so the test can read the tool results the agent sent
back and the key it used.  It listens on ADDR (default 127.0.0.1) on a
port the kernel chooses, written to PORTFILE.
Streaming (SSE) and plain JSON replies are both supported.
With --results, it prints the tool results of the last request in LOG
that offered tools, in order, one "RESULT text" line each (blanks
folded), for the test to check step by step.
"""
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def results(log):
    last = None
    for line in open(log):
        body = json.loads(line)["body"]
        if body.get("tools"):
            last = body
    for m in (last or {}).get("messages", []):
        if m.get("role") == "tool":
            c = m.get("content")
            if isinstance(c, list):
                c = " ".join(p.get("text", "") for p in c
                             if isinstance(p, dict))
            print("RESULT " + " ".join(str(c).split()))


if sys.argv[1] == "--results":
    results(sys.argv[2])
    sys.exit(0)
script = json.load(open(sys.argv[1]))
log_path = sys.argv[2]


def chunk(delta, finish=None, usage=False):
    c = {
        "id": "chatcmpl-mock",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": "mock-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    if usage:
        c["usage"] = {"prompt_tokens": 10, "completion_tokens": 5,
                      "total_tokens": 15}
    return c


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("mock-llm: " + fmt % args + "\n")

    def do_GET(self):
        body = json.dumps({"object": "list", "data": [
            {"id": "mock-model", "object": "model", "owned_by": "llwrap"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        req = json.loads(self.rfile.read(n) or b"{}")
        with open(log_path, "a") as f:
            f.write(json.dumps({"path": self.path, "body": req,
                                "authorization":
                                    self.headers.get("Authorization")}) + "\n")
        msgs = req.get("messages", [])
        step = sum(1 for m in msgs if m.get("role") == "tool")
        if req.get("tools") and step < len(script):
            cmd = script[step]
            args = json.dumps({"command": cmd,
                               "description": "step %d" % step})
            call = {"index": 0, "id": "call_%d" % step, "type": "function",
                    "function": {"name": "bash", "arguments": args}}
            deltas = [{"role": "assistant", "content": None,
                       "tool_calls": [call]}]
            finish = "tool_calls"
            message = {"role": "assistant", "content": None,
                       "tool_calls": [call]}
        else:
            text = "done" if req.get("tools") else "Mock title"
            deltas = [{"role": "assistant", "content": text}]
            finish = "stop"
            message = {"role": "assistant", "content": text}
        if req.get("stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            out = [chunk(d) for d in deltas] + [chunk({}, finish, True)]
            for c in out:
                self.wfile.write(b"data: " + json.dumps(c).encode() + b"\n\n")
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True
        else:
            message.pop("index", None)
            body = json.dumps({
                "id": "chatcmpl-mock", "object": "chat.completion",
                "created": int(time.time()), "model": "mock-model",
                "choices": [{"index": 0, "message": message,
                             "finish_reason": finish}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                          "total_tokens": 15}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)


srv = ThreadingHTTPServer((sys.argv[4] if len(sys.argv) > 4 else "127.0.0.1", 0),
                         Handler)
with open(sys.argv[3], "w") as f:
    f.write(str(srv.server_address[1]))
srv.serve_forever()
