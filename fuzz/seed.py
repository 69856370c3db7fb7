#!/usr/bin/env python3
"""Writes the fuzz seed corpora: every decode input of the conformance suite and
every reply of the broken-reply corpora, one file each, under fuzz/corpus/<target>/."""
import glob, hashlib, json, os, re

root = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(root)
seeds = []
for path in glob.glob(os.path.join(repo, "tests/fixtures/toon-spec/decode/*.json")):
    seeds += [t["input"] for t in json.load(open(path))["tests"]]
for path in glob.glob(os.path.join(repo, "tests/fixtures/toon-spec/encode/*.json")):
    seeds += [t["expected"] for t in json.load(open(path))["tests"]]
for path in ("tests/replies/corpus.txt", "tests/replies/typed.txt"):
    text = open(os.path.join(repo, path)).read()
    for case in re.split(r"^### .*\n", text, flags=re.M)[1:]:
        seeds.append(case.split("\n=== ")[0])
for path in glob.glob(os.path.join(repo, "examples/replies/*")):
    seeds.append(open(path).read())
# Each server's replies: tests/replies/real/<server>/<type>/, .../grammar/<type>/, .../mechanisms/<type>/.
for path in glob.glob(os.path.join(repo, "tests/replies/real/*/*/*.txt")) + glob.glob(
    os.path.join(repo, "tests/replies/real/*/*/*/*.txt")
):
    seeds.append(open(path).read())
# Replies of the targets' type with two delimited blocks (fuzz_targets/common/briefing.rs).
seeds += [
    "found: true\n<summary>\nTwo findings.\n</summary>\nviolations[1]{category,severity,description,related_rule_id,remediation}:\n  privacy,HIGH,Plain-text emails,R-1,Encrypt them\n<answer>\nYes: see R-1.\n</answer>\n",
    "<answer>\nSee <summary>\nnot this\n</summary> above.\n</answer>\nfound: false\nviolations[0]:\n<summary>\nNone.\n</summary>\n",
    "```toon\nfound: true\nviolations[0]:\n```\n<summary>\nOpen, never closed.\n",
]
# The stream target reads its first byte as the seed of its chunk sizes.
for target, prefix in (("decode", b""), ("decode_reply", b""), ("from_toon", b""), ("stream", b"\x07")):
    out = os.path.join(root, "corpus", target)
    os.makedirs(out, exist_ok=True)
    for s in seeds:
        data = prefix + s.encode()
        open(os.path.join(out, hashlib.sha1(data).hexdigest()), "wb").write(data)
print(f"{len(seeds)} seeds for each of decode, decode_reply, from_toon, stream")
