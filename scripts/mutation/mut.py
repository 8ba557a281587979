# SPDX-License-Identifier: GPL-2.0
"""Python side of the mutation operators (scripts/mutation/*.cocci).

spatch runs each operator's .cocci over one file:
  MUT_MODE=find    once per rule name (MUT_FIND): that rule transforms all
                   its matches (the diff is thrown away) and prints one
                   JSON line per mutation point: rule, line, column, end,
                   enclosing function; the other rules transform nothing,
                   so that no rule matches code another one changed;
  MUT_MODE=mutate  only the point MUT_RULE at MUT_LINE:MUT_COL is
                   transformed: spatch's diff is the mutant.
"Site" rules (context rules, no transformation) record positions first,
e.g. the if statements whose branch is an error path, so that a later
rule transforms only what lies there (at_site()).
"""
import json
import os
import re

MODE = os.environ.get("MUT_MODE", "find")
TARGET = (os.environ.get("MUT_RULE"), os.environ.get("MUT_LINE"),
          os.environ.get("MUT_COL"))
SITES = {}
NAMES = {}


def _key(p):
    return (p.line, p.column)


def site(kind, ps):
    """Record the positions ps (a position metavariable's value)."""
    s = SITES.setdefault(kind, set())
    for p in ps:
        s.add(_key(p))


def in_site(kind, ps):
    return any(_key(p) in SITES.get(kind, ()) for p in ps)


def within(kind, ps):
    """Whether ps lies inside the span of a recorded site of kind."""
    p = ps[0]
    here = (int(p.line), int(p.column))
    for (l, c, le, ce) in SITES.get(kind + ":span", ()):
        if (int(l), int(c)) <= here <= (int(le), int(ce)):
            return True
    return False


def site_span(kind, ps):
    s = SITES.setdefault(kind + ":span", set())
    for p in ps:
        s.add((p.line, p.column, p.line_end, p.column_end))


def name(kind, n):
    NAMES.setdefault(kind, set()).add(n)


def named(kind, n):
    return n in NAMES.get(kind, ())


def want(rule, ps):
    """Whether rule may transform the point ps."""
    if MODE == "find":
        return rule == os.environ.get("MUT_FIND")
    p = ps[0]
    return (rule, p.line, p.column) == TARGET


def found(rule, ps):
    if MODE != "find" or rule != os.environ.get("MUT_FIND"):
        return
    p = ps[0]
    print("MUT " + json.dumps({"rule": rule, "line": int(p.line),
                               "col": int(p.column),
                               "line_end": int(p.line_end),
                               "col_end": int(p.column_end),
                               "func": p.current_element}), flush=True)


# The calls each statement-removal operator removes.
REFCOUNT = re.compile(
    r"^(kref_(get|put)|get_page|put_page|get_dma_buf|dma_buf_put"
    r"|dma_heap_(get|put)|__module_get|module_put|kobject_(get|put)"
    r"|refcount_(inc|dec)|get_device|put_device|of_node_(get|put)"
    r"|get_file|fput)$")
RELEASE = re.compile(
    r"^(k[vz]?free|vfree|vunmap|memunmap|__free_pages?|free_pages|cma_release"
    r"|gen_pool_(free|destroy)|sg_free_table|xa_erase|.*uncharge.*"
    r"|mutex_unlock|spin_unlock.*|xa_unlock.*|up_(read|write)"
    r"|release_resource|kobject_del|dma_unmap_.*|put_unused_fd"
    r"|device_(unregister|destroy)|class_destroy|__unregister_chrdev"
    r"|cdev_del|debugfs_remove.*|unregister_shrinker"
    r"|kthread_(stop|destroy_worker)"
    r"|.*_(free|release|destroy|remove|put|unmap|vunmap|unreport)(_.*)?)$")
ZERO = re.compile(r"^(clear_page|clear_highpage|clear_user_highpage"
                  r"|memzero_explicit|zero_user.*|.*_zero(_.*)?)$")
SYNC = re.compile(r"^(dma_sync_.*|arch_sync_dma_.*|flush_kernel_vmap_range"
                  r"|invalidate_kernel_vmap_range|flush_dcache_page"
                  r"|flush_cache_.*|dma_cache_sync)$")


def is_refcount(f):
    return bool(REFCOUNT.match(f))


# Names RELEASE would match that release nothing: a barrier's store, and a
# lock's debug-only teardown.
NOT_RELEASE = re.compile(r"^(smp_store_release|.*_store_release|mutex_destroy)$")


def is_release(f):
    return (bool(RELEASE.match(f)) and not is_refcount(f)
            and not NOT_RELEASE.match(f))


def is_zeroing(f):
    return bool(ZERO.match(f))


def is_sync(f):
    return bool(SYNC.match(f))
