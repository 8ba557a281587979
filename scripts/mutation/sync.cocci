// SPDX-License-Identifier: GPL-2.0
// Operator "sync": a DMA sync or cache-maintenance call removed (names in
// mut.py's SYNC: dma_sync_*, flush_kernel_vmap_range,
// invalidate_kernel_vmap_range, ...)
// removed (the direction changed: sync-dir.cocci).
@initialize:python@
@@
import os, sys
sys.path.insert(0, os.environ["MUT_PY"])
from mut import *

@scall@
identifier f : script:python() { is_sync(f) };
position p : script:python() { want("sync-call", p) };
@@
- f@p(...);

@script:python@
p << scall.p;
@@
found("sync-call", p)
