// SPDX-License-Identifier: GPL-2.0
// Operator "release": a call that gives something back, removed: memory
// (kfree, __free_pages, cma_release, gen_pool_free, vunmap, the heaps' own
// put/free/release helpers...), tables, mappings, ids (xa_erase), charges
// (uncharge) and locks (mutex_unlock, spin_unlock, up_read...): the names
// are mut.py's RELEASE.  Reference counts' puts are "refcount".
@initialize:python@
@@
import os, sys
sys.path.insert(0, os.environ["MUT_PY"])
from mut import *

@rel@
identifier f : script:python() { is_release(f) };
position p : script:python() { want("release", p) };
@@
- f@p(...);

@script:python@
p << rel.p;
@@
found("release", p)
