"""A toy harness for the tests of the harness protocol: ``python toy.py MODE``.

It declares ``hash`` and answers every hash request with the Appendix B hash of an int (the
spec's example: 34 hashes to 2017239379) or 0, and misbehaves as MODE says: ``good``,
``bad-json-start``, ``no-language``, ``wrong-id``, ``hang``, ``crash``, ``string-hash``,
``no-exit``, ``crash-on-13``, ``hang-on-13``, ``print-junk``.
"""

import json
import sys
import time

mode = sys.argv[1]
for line in sys.stdin:
    request = json.loads(line)
    rid = request["id"]
    if request["op"] == "start":
        if mode == "bad-json-start":
            print("hello, I am a harness", flush=True)
            continue
        reply = {"id": rid, "protocol": 1, "implementation": "toy", "language": "python", "version": "0",
                 "capabilities": ["hash"]}
        if mode == "no-language":
            del reply["language"]
        print(json.dumps(reply), flush=True)
        continue
    if request["op"] == "stop":
        if mode == "no-exit":
            time.sleep(60)
        break
    value = request.get("value")
    if mode == "wrong-id":
        rid += 1
    if mode == "hang" or (mode == "hang-on-13" and value == 13):
        time.sleep(60)
    if mode == "crash" or (mode == "crash-on-13" and value == 13):
        sys.exit(3)
    if mode == "print-junk":
        print("debug: hashing", flush=True)
    result = 2017239379 if (request.get("type"), value) == ("int", 34) else 0
    print(json.dumps({"id": rid, "result": str(result) if mode == "string-hash" else result}), flush=True)
