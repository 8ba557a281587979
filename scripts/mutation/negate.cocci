// SPDX-License-Identifier: GPL-2.0
// Operator "negate": the condition of an if whose branch is an error path
// negated: if (E) -> if (!(E)), and if (!E) -> if (E).
@initialize:python@
@@
import os, sys
sys.path.insert(0, os.environ["MUT_PY"])
from mut import *

// The if statements whose branch is an error path: it returns -E...,
// ERR_PTR(), PTR_ERR(), ERR_CAST(), VM_FAULT_SIGBUS or ret/err, or goes
// to a label (kernel style: an unwinding label), directly or as the last
// statement of its block.
@errif@
position p;
identifier C =~ "^E[A-Z0-9]+$";
identifier R =~ "^(ret|err|error|rc)$";
identifier L;
expression E;
position E1;
statement S2;
@@
(
 if@p (E@E1) \( return -C; \| return ERR_PTR(...); \| return PTR_ERR(...); \| return ERR_CAST(...); \| return VM_FAULT_SIGBUS; \| return R; \| goto L; \) else S2
|
 if@p (E@E1) { ... \( return -C; \| return ERR_PTR(...); \| return PTR_ERR(...); \| return ERR_CAST(...); \| return VM_FAULT_SIGBUS; \| return R; \| goto L; \) } else S2
|
 if@p (E@E1) \( return -C; \| return ERR_PTR(...); \| return PTR_ERR(...); \| return ERR_CAST(...); \| return VM_FAULT_SIGBUS; \| return R; \| goto L; \)
|
 if@p (E@E1) { ... \( return -C; \| return ERR_PTR(...); \| return PTR_ERR(...); \| return ERR_CAST(...); \| return VM_FAULT_SIGBUS; \| return R; \| goto L; \) }
)

@script:python@
p << errif.p;
@@
site("errif", p)

@neg@
expression E;
statement S;
position p : script:python() { in_site("errif", p) and want("negate", p) };
@@
(
 if@p (
- !E
+ E
 ) S
|
 if@p (
- E
+ !(E)
 ) S
)

@script:python@
p << neg.p;
@@
found("negate", p)
