// SPDX-License-Identifier: GPL-2.0
/*
 * lib/xarray.c as a kernel build compiles it: the harness's own object
 * (../shared/xarray-shared.c) defines XA_DEBUG for its tests, which adds
 * consistency checks to the paths zswap_forms times.
 */
#include "shared.h"
#include "../../../lib/xarray.c"
