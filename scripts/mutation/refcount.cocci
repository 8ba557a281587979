// SPDX-License-Identifier: GPL-2.0
// Operator "refcount": a reference count's get or put removed (a call
// made as a statement, names in mut.py's REFCOUNT: kref_get/put,
// get_page/put_page, get_dma_buf, dma_buf_put, dma_heap_get/put, module
// and kobject references...).
@initialize:python@
@@
import os, sys
sys.path.insert(0, os.environ["MUT_PY"])
from mut import *

@ref@
identifier f : script:python() { is_refcount(f) };
position p : script:python() { want("refcount", p) };
@@
- f@p(...);

@script:python@
p << ref.p;
@@
found("refcount", p)
