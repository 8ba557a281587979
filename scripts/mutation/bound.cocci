// SPDX-License-Identifier: GPL-2.0
// Operator "bound": a bound moved by one, < <-> <=, > <-> >=, in a
// validation: the condition of an if whose branch is an error path, or
// the value a function returns (its predicates: return a < b && ...;).
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
c << errif.E1;
@@
site_span("valid", c)

@retexpr@
expression E;
position q;
@@
 return E@q;

@script:python@
q << retexpr.q;
@@
site_span("valid", q)

@lt disable gtr_lss, gtr_lss_eq@
expression A, B;
position p : script:python() { within("valid", p) and want("bound-lt", p) };
@@
 A@p
- <
+ <=
 B

@script:python@
p << lt.p;
@@
found("bound-lt", p)

@le disable gtr_lss, gtr_lss_eq@
expression A, B;
position p : script:python() { within("valid", p) and want("bound-le", p) };
@@
 A@p
- <=
+ <
 B

@script:python@
p << le.p;
@@
found("bound-le", p)

@gt disable gtr_lss, gtr_lss_eq@
expression A, B;
position p : script:python() { within("valid", p) and want("bound-gt", p) };
@@
 A@p
- >
+ >=
 B

@script:python@
p << gt.p;
@@
found("bound-gt", p)

@ge disable gtr_lss, gtr_lss_eq@
expression A, B;
position p : script:python() { within("valid", p) and want("bound-ge", p) };
@@
 A@p
- >=
+ >
 B

@script:python@
p << ge.p;
@@
found("bound-ge", p)
