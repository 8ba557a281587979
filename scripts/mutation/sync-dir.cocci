// SPDX-License-Identifier: GPL-2.0
// Operator "sync-dir": a DMA sync's direction changed: a sync for the CPU
// as if the device had only read (DMA_TO_DEVICE: nothing comes back), one
// for the device as if it had only written (DMA_FROM_DEVICE: nothing goes
// to it).  Apart from sync.cocci, whose removals would take these calls
// away before this runs in find mode.
@initialize:python@
@@
import os, sys
sys.path.insert(0, os.environ["MUT_PY"])
from mut import *

@sdir_cpu@
identifier f =~ "^dma_sync_.*_for_cpu$";
expression D, X, E != DMA_TO_DEVICE;
position p : script:python() { want("sync-dir", p) };
@@
 f(D, X,
- E@p
+ DMA_TO_DEVICE
 )

@script:python@
p << sdir_cpu.p;
@@
found("sync-dir", p)

@sdir_cpu4@
identifier f =~ "^dma_sync_.*_for_cpu$";
expression D, X, N, E != DMA_TO_DEVICE;
position p : script:python() { want("sync-dir", p) };
@@
 f(D, X, N,
- E@p
+ DMA_TO_DEVICE
 )

@script:python@
p << sdir_cpu4.p;
@@
found("sync-dir", p)

@sdir_dev@
identifier f =~ "^dma_sync_.*_for_device$";
expression D, X, E != DMA_FROM_DEVICE;
position p : script:python() { want("sync-dir", p) };
@@
 f(D, X,
- E@p
+ DMA_FROM_DEVICE
 )

@script:python@
p << sdir_dev.p;
@@
found("sync-dir", p)

@sdir_dev4@
identifier f =~ "^dma_sync_.*_for_device$";
expression D, X, N, E != DMA_FROM_DEVICE;
position p : script:python() { want("sync-dir", p) };
@@
 f(D, X, N,
- E@p
+ DMA_FROM_DEVICE
 )

@script:python@
p << sdir_dev4.p;
@@
found("sync-dir", p)
