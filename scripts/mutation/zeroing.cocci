// SPDX-License-Identifier: GPL-2.0
// Operator "zeroing": zeroing removed.
//   clear_page(..); clear_highpage(..); the series' *_zero*() helpers
//   (mut.py's ZERO)          ->  removed; as X = f(..);  ->  X = 0;
//   memset(B, 0, N);         ->  removed
//   E | __GFP_ZERO           ->  E
@initialize:python@
@@
import os, sys
sys.path.insert(0, os.environ["MUT_PY"])
from mut import *

@zcall@
identifier f : script:python() { is_zeroing(f) };
position p : script:python() { want("zeroing-call", p) };
@@
- f@p(...);

@script:python@
p << zcall.p;
@@
found("zeroing-call", p)

@zret@
identifier f : script:python() { is_zeroing(f) };
expression X;
position p : script:python() { want("zeroing-call", p) };
@@
 X =
- f@p(...)
+ 0
 ;

@script:python@
p << zret.p;
@@
found("zeroing-call", p)

@zmemset@
position p : script:python() { want("memset", p) };
@@
- memset@p(\(...\), 0, ...);

@script:python@
p << zmemset.p;
@@
found("memset", p)

@zgfp@
expression E;
position p : script:python() { want("gfp-zero", p) };
@@
(
- E | __GFP_ZERO@p
+ E
|
- __GFP_ZERO@p | E
+ E
)

@script:python@
p << zgfp.p;
@@
found("gfp-zero", p)
