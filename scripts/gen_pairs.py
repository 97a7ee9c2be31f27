#!/usr/bin/env python3
"""A random DAG as tsort(1) input: PAIRS lines `X Y` (X before Y) over NODES
tokens. The same arguments always give the same bytes.

usage: gen_pairs.py PAIRS NODES SEED > pairs.txt
"""
import random
import sys

pairs, nodes, seed = (int(a) for a in sys.argv[1:4])
rng = random.Random(seed)
# A hidden order makes it a DAG; tokens are shuffled so that the order is
# not visible in the names.
names = ["n%07d" % i for i in range(nodes)]
rng.shuffle(names)
out = []
for _ in range(pairs):
    a = rng.randrange(nodes - 1)
    b = rng.randrange(a + 1, nodes)
    out.append("%s %s\n" % (names[a], names[b]))
sys.stdout.write("".join(out))
