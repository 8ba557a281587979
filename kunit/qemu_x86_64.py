# SPDX-License-Identifier: GPL-2.0
# kunit.py --qemu_config for our runs: x86_64 with enough memory for the
# heaps' tests and a CMA area for the CMA heap.  run_kunit.sh sets
# DMA_HEAPS_ACCEL to "kvm" when a probe showed that KVM boots here, and
# DMA_HEAPS_CMA=0 for its boot without a CMA area (kunit.py puts its own
# kernel arguments before ours, so they cannot override cma=), and
# DMA_HEAPS_CPU=max for its hugetlb_cma boot (1 GiB pages need pdpe1gb,
# which QEMU's default CPU model lacks), and DMA_HEAPS_MEM (MiB, default
# 2048) for its boot with a CMA area past 4 GiB.  no_timer_check: on a
# loaded host, TCG can be too slow for the kernel's check that the
# IO-APIC delivers the timer, which then panics ("IO-APIC + timer doesn't
# work!", seen once on 2026-12-06 with the machine's two CPUs shared by
# five builds).  Under KVM the default is the host's CPU.
# DMA_HEAPS_SMP: the CPUs of the guest, 2 unless set (the kernel is built
# for two, kunitconfig).
import os

from ..qemu_config import QemuArchParams

_accel = os.environ.get('DMA_HEAPS_ACCEL', 'tcg')
_cpu = os.environ.get('DMA_HEAPS_CPU') or ('host' if _accel == 'kvm' else '')
# The carveout heap's range, 8 MiB of RAM that dma_heap.carveout= reserves
# as the command line is parsed, in every boot.  Below 16 MiB, where the
# kernel is never placed, KASLR or not (LOAD_PHYSICAL_ADDR): above it, the
# kernel could sit on the range, which is then refused.  The heaps the
# carveout suite makes of their own take RAM from the page allocator.
_carveout = 'dma_heap.carveout=8M@0x800000'

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0 no_timer_check ' +
					       _carveout +
					       ' cma=' +
					       os.environ.get('DMA_HEAPS_CMA', '64M'),
			   extra_qemu_params=['-bios', 'qboot.rom',
					      '-m', os.environ.get('DMA_HEAPS_MEM', '2048'),
					      '-smp', os.environ.get('DMA_HEAPS_SMP', '2'),
					      '-accel', _accel] +
					     (['-cpu', _cpu] if _cpu else []))
