"""A stand-in for a model, used as `--sampling-command "python fake_llm.py MODE [LOG]"`.

Reads CreateMessageRequestParams as JSON on stdin and prints a CreateMessageResult on
stdout. With LOG, appends the params it got to that file (one JSON line per run).

Modes:
- `echo`: replies "echo: <last user text> (maxTokens N)" as model "fake-llm-1".
- `tool`: replies with a tool_use of the first tool offered (stopReason "toolUse").
- `fail`: writes "no API key" to stderr and exits 3.
- `garbage`: prints text that is not JSON.
- `invalid`: prints a result with no model.
- `sleep`: sleeps for an hour (for timeouts: only a kill ends it); writes its pid to LOG first.
"""

from __future__ import annotations

import json
import os
import sys
import time


def main() -> None:
    mode = sys.argv[1]
    log = sys.argv[2] if len(sys.argv) > 2 else None
    params = json.load(sys.stdin)
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"pid": os.getpid(), "params": params}) + "\n")
    print(f"fake-llm: {mode}", file=sys.stderr)
    if mode == "fail":
        print("no API key", file=sys.stderr)
        sys.exit(3)
    if mode == "garbage":
        print("Sure! Here is your answer.")
        return
    if mode == "invalid":
        print(json.dumps({"role": "assistant", "content": {"type": "text", "text": "x"}}))
        return
    if mode == "sleep":
        time.sleep(3600)
        return
    if mode == "tool":
        tool = params["tools"][0]["name"]
        print(json.dumps({"role": "assistant", "model": "fake-llm-1", "stopReason": "toolUse",
                          "content": [{"type": "tool_use", "id": "call_1", "name": tool, "input": {"city": "Paris"}}]}))
        return
    last = params["messages"][-1]["content"]
    text = last["text"] if isinstance(last, dict) else last[0]["text"]
    print(json.dumps({"role": "assistant", "model": "fake-llm-1", "stopReason": "endTurn",
                      "content": {"type": "text", "text": f"echo: {text} (maxTokens {params['maxTokens']})"}}))


if __name__ == "__main__":
    main()
