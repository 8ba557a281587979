# SPDX-License-Identifier: GPL-2.0
# kunit.py --qemu_config for the arm64 run (run_kunit.sh, KUNIT_ARCHES=arm64):
# QEMU's virt machine under TCG, as kunit.py's own arm64 configuration,
# with 2 GiB, two CPUs (DMA_HEAPS_SMP, as on x86) and a CMA area of
# DMA_HEAPS_CMA (default 64M) for the CMA and chunk heaps.  cortex-a57:
# the CPU kunit.py's own configuration boots.  DMA_HEAPS_DTB=file boots
# with that device tree (scripts/arm64-dtb.sh: QEMU's own with
# /reserved-memory regions added), whose default CMA region replaces cma=;
# DMA_HEAPS_INITRD=file with it boots with that initrd.
import os

from ..qemu_config import QemuArchParams

_DTB = os.environ.get('DMA_HEAPS_DTB', '')
_INITRD = os.environ.get('DMA_HEAPS_INITRD', '')

QEMU_ARCH = QemuArchParams(linux_arch='arm64',
			   kconfig='''
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''',
			   qemu_arch='aarch64',
			   kernel_path='arch/arm64/boot/Image.gz',
			   kernel_command_line='console=ttyAMA0' +
					       ('' if _DTB else ' cma=' +
						os.environ.get('DMA_HEAPS_CMA', '64M')),
			   extra_qemu_params=['-machine', 'virt', '-cpu', 'cortex-a57',
					      '-m', '2048',
					      '-smp', os.environ.get('DMA_HEAPS_SMP', '2')] +
					     (['-dtb', _DTB] if _DTB else []) +
					     (['-initrd', _INITRD] if _DTB and _INITRD else []))
