/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/* libFuzzer entry point of the import harness (fuzz_obj_import.c). */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_obj_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_obj_import_one(data, size);
	return 0;
}
