// SPDX-License-Identifier: GPL-2.0
// Operator "error-return": an error made a success.
//   return -E...;       ->  return 0;
//   X = -E...;          ->  X = 0;
//   return ERR_PTR(..); ->  return NULL;  in a function of this file whose
//                           result a caller of this file checks for NULL
@initialize:python@
@@
import os, sys
sys.path.insert(0, os.environ["MUT_PY"])
from mut import *

@ret_errno@
identifier C =~ "^E[A-Z0-9]+$";
position p : script:python() { want("return-errno", p) };
@@
 return@p
- -C
+ 0
 ;

@script:python@
p << ret_errno.p;
@@
found("return-errno", p)

@set_errno@
identifier C =~ "^E[A-Z0-9]+$";
expression X;
position p : script:python() { want("set-errno", p) };
@@
 X@p =
- -C
+ 0
 ;

@script:python@
p << set_errno.p;
@@
found("set-errno", p)

@null_checked exists@
identifier f;
expression x;
statement S1, S2;
@@
 x = f(...);
 ...
(
 if (<+... \( !x \| x == NULL \| IS_ERR_OR_NULL(x) \) ...+>) S1 else S2
|
 if (<+... \( !x \| x == NULL \| IS_ERR_OR_NULL(x) \) ...+>) S1
)

@script:python@
f << null_checked.f;
@@
name("null-checked", f)

@err_ptr@
position p : script:python() { named("null-checked", p[0].current_element) and want("errptr-null", p) };
@@
 return@p
- ERR_PTR(...)
+ NULL
 ;

@script:python@
p << err_ptr.p;
@@
found("errptr-null", p)
