/* SPDX-License-Identifier: MIT */
/*
 * fuzz_variants: the variant and preset parser. The input, as text, goes to
 * msim_variant_set() (one NAME=VALUE), msim_preset_apply() (a preset name)
 * and msim_race_settings_apply() (a comma list, as sides and shard files give
 * them). Each must accept or refuse with a message; what it accepts must
 * format and read back to the same variants.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/race.h>
#include <memcgsim/variants.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[1024], err[512], formatted[1024], again_formatted[1024];
	struct msim_config cfg, again;

	if (size >= sizeof(text))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	msim_config_init(&cfg);
	err[0] = '\0';
	if (msim_variant_set(&cfg.variants, text, err, sizeof(err)) && !err[0])
		abort();   /* a refusal says why */
	err[0] = '\0';
	if (msim_preset_apply(&cfg.variants, text, err, sizeof(err)) && !err[0])
		abort();
	msim_config_init(&cfg);
	if (msim_race_settings_apply(&cfg, text, err, sizeof(err)))
		return 0;
	/* accepted: the formatted variants apply again to the same ones */
	msim_variants_format(&cfg.variants, formatted, sizeof(formatted));
	msim_config_init(&again);
	if (msim_race_settings_apply(&again, formatted, err, sizeof(err)))
		abort();
	msim_variants_format(&again.variants, again_formatted, sizeof(again_formatted));
	if (strcmp(formatted, again_formatted))
		abort();
	return 0;
}
