/* SPDX-License-Identifier: MIT */
/*
 * variants.h - the design variants the threads argue about, as runtime settings.
 *
 * Each patch of a thread is one named variant that can be switched alone; each
 * thread's series is a named preset. Each layer declares its own rows (name,
 * values, meaning, thread) in its struct msim_subsys, and its enums in its own
 * header (rstat.h: enum msim_rstat_propagate); this file holds only the
 * machinery: the values' storage, indexed by the slot a subsystem gets when it
 * registers, parsing, formatting and the presets. The command line, the benches
 * and the docs all read the same rows (msim_variant_list()). Value 0 of every
 * variant is mainline, except where a row says it is the model's old
 * simplification (node-stat, kmem-stat), kept so that earlier figures stay
 * comparable.
 *
 * The presets are data here: a name, a meaning and a string of NAME=VALUE
 * settings, the same as a command line's. A preset spans layers (linux-6.12
 * sets eight variants of six subsystems), so no layer owns it; naming no C
 * symbol of a layer, it resolves against the registered rows when applied, and
 * a preset naming a row nobody registered fails as a command line would
 * (unit/test_sched checks that every preset applies).
 */
#ifndef MEMCGSIM_VARIANTS_H
#define MEMCGSIM_VARIANTS_H

#include <memcgsim/api.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* On/off switches (value 0 on): a demonstration removes a fix to show the race it closes. */
enum msim_onoff {
	MSIM_ON = 0,
	MSIM_OFF = 1,
};

/*
 * One row of the table: a variant, declared by the subsystem that reads it, in
 * its struct msim_subsys (subsys.h). Value i of the row is enum value i of the
 * layer's enum (rstat.h's enum msim_rstat_propagate for rstat-propagate).
 */
/*
 * The values of an on/off variant, "on" (value 0) its mainline: for
 * msim_variant_desc.values in a static table at file scope, in C (a compound
 * literal: static there, so each table that names it has its own copy and no
 * symbol is exported; inside a function it would live only as long as the
 * call, and ISO C++ has none).
 */
#define MSIM_VARIANT_VALUES_ON_OFF ((const char *const[]){ "on", "off", NULL })

struct msim_variant_desc {
	const char *name;         /* command-line name, e.g. "rstat-propagate" */
	const char *const *values; /* NULL-terminated; index = enum value; [0] is mainline */
	const char *meaning;
	const char *thread;       /* "004", "002 patch 2", "demo", ... */
};

/* Registered subsystems per process (subsys.h), and the rows one may declare. */
#define MSIM_MAX_SUBSYS 32
#define MSIM_SUBSYS_MAX_VARIANTS 16
#define MSIM_MAX_VARIANTS (MSIM_MAX_SUBSYS * MSIM_SUBSYS_MAX_VARIANTS)

/*
 * The value of every variant: value[id][row] is row `row` of the subsystem whose
 * registry id is id (subsys.h hands ids out at registration), as an index into
 * the row's values. All zero is mainline. A plain value: copy it by assignment.
 * Read and write it through the functions below, or, in the layer that owns
 * a row, msim_subsys_variant() (subsys.h); only the owning layer may index its
 * own slot (rstat does, inline, on its stat write path).
 */
struct msim_variants {
	unsigned char value[MSIM_MAX_SUBSYS + 1][MSIM_SUBSYS_MAX_VARIANTS];
};

/*
 * The rows of every registered subsystem, up to max of them in out, in the order
 * the variants string lists them: subsystems by name, each one's rows in the
 * order it declares them. Returns how many there are. A program linked with the
 * static library has the rows of the layers it links (as it has their subsystems).
 */
MSIM_API unsigned int msim_variant_list(const struct msim_variant_desc **out, unsigned int max);

struct msim_preset_desc {
	const char *name;         /* "mainline", "thread-004", ... */
	const char *meaning;
	const char *settings;     /* "rstat-propagate=continue,..." ("" for none) */
};
MSIM_API const struct msim_preset_desc *msim_preset_table(void);

/* Every variant at its mainline value. */
MSIM_API void msim_variants_init(struct msim_variants *v);

/*
 * Apply "NAME=VALUE" (or a preset by name). Returns 0, or -EINVAL writing a message
 * that lists the valid names or values into err.
 */
MSIM_API int msim_variant_set(struct msim_variants *v, const char *assignment, char *err, size_t errlen);
MSIM_API int msim_preset_apply(struct msim_variants *v, const char *preset, char *err, size_t errlen);

/*
 * The typed setter: variant name to value (the layer's enum, e.g.
 * msim_variant_set_value(&cfg.variants, "rstat-propagate",
 * MSIM_RSTAT_PROPAGATE_CONTINUE)). Returns 0, or -EINVAL for an unknown name or
 * a value past the row's values.
 */
MSIM_API int msim_variant_set_value(struct msim_variants *v, const char *name, int value);

/* Current value name of a variant ("break"), or NULL for an unknown variant. */
MSIM_API const char *msim_variant_get(const struct msim_variants *v, const char *name);

/* Current value of a variant (its enum value), or -EINVAL for an unknown variant. */
MSIM_API int msim_variant_value(const struct msim_variants *v, const char *name);

/*
 * "rstat-propagate=break,..." for every variant; returns bytes that would be written
 * (snprintf's rule: a return >= len means buf was cut). MSIM_VARIANTS_STRLEN holds
 * every variant at its longest value (test_variants_format checks it), so a buffer
 * of that size never cuts the string a run records.
 */
#define MSIM_VARIANTS_STRLEN 2048
MSIM_API size_t msim_variants_format(const struct msim_variants *v, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_VARIANTS_H */
