/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the subsystem registry (subsys.h): attach order follows the
 * dependencies, detach runs in reverse, a cycle, a missing or a disabled
 * dependency is refused with a message, a failing init unwinds what attached,
 * and the state accessors are plain lookups.
 *
 * Each test registers its own subsystems (names "t.*") and the teardown
 * unregisters them, so a failed test cannot leave a cycle registered for the
 * next one. Every host records its init and fini calls in one log string.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include <memcgsim/memcgsim.h>

static char log_buf[512];

static void log_event(const char *what, const char *name)
{
	size_t len = strlen(log_buf);

	snprintf(log_buf + len, sizeof(log_buf) - len, "%s%s:%s", len ? " " : "", what, name);
}

struct t_state {
	long magic;            /* zero at init: sim hands out zeroed state */
	struct msim *host;
};

#define T_MAGIC 0x5e55L
static const char *fail_init;  /* name of the subsystem whose init fails */
static unsigned int min_cpus_c; /* t.c is enabled on hosts with at least this many CPUs */

static const char *name_of(struct msim *m, void *state);

static int t_init(struct msim *m, void *state)
{
	const char *name = name_of(m, state);
	struct t_state *st = state;

	log_event("init", name);
	if (fail_init && !strcmp(fail_init, name))
		return -ENOMEM;
	assert_int_equal(st->magic, 0);
	st->magic = T_MAGIC;
	st->host = m;
	return 0;
}

static void t_fini(struct msim *m, void *state)
{
	struct t_state *st = state;

	assert_int_equal(st->magic, T_MAGIC);
	assert_ptr_equal(st->host, m);
	log_event("fini", name_of(m, state));
}

static bool c_enabled(const struct msim_config *cfg)
{
	return cfg->nr_cpus >= min_cpus_c;
}

static const char *const deps_a[] = { "t.b", NULL };
static const char *const deps_b[] = { "t.c", NULL };
static const char *const deps_x[] = { "t.y", NULL };
static const char *const deps_y[] = { "t.z", NULL };
static const char *const deps_z[] = { "t.x", NULL };
static const char *const deps_lost[] = { "t.nowhere", NULL };

/* Each description const, as a layer's; the registry writes its id where .id points. */
#define T_SUBSYS(n, d) { .name = n, .depends = d, .state_size = sizeof(struct t_state), \
			 .host_init = t_init, .host_fini = t_fini, .id = &(unsigned int){ 0 } }

static const struct msim_subsys ss_a = T_SUBSYS("t.a", deps_a);
static const struct msim_subsys ss_b = T_SUBSYS("t.b", deps_b);
static const struct msim_subsys ss_c = { .name = "t.c", .state_size = sizeof(struct t_state),
				   .host_init = t_init, .host_fini = t_fini,
				   .enabled = c_enabled, .id = &(unsigned int){ 0 } };
static const struct msim_subsys ss_d = T_SUBSYS("t.d", NULL);
static const struct msim_subsys ss_x = T_SUBSYS("t.x", deps_x);
static const struct msim_subsys ss_y = T_SUBSYS("t.y", deps_y);
static const struct msim_subsys ss_z = T_SUBSYS("t.z", deps_z);
static const struct msim_subsys ss_lost = T_SUBSYS("t.lost", deps_lost);

static const struct msim_subsys *const all[] = { &ss_a, &ss_b, &ss_c, &ss_d,
					   &ss_x, &ss_y, &ss_z, &ss_lost };

static const char *name_of(struct msim *m, void *state)
{
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (msim_subsys_state(m, all[i]) == state)
			return all[i]->name;
	return "?";
}

static int reset(void **st)
{
	(void)st;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		msim_subsys_unregister(all[i]);
	log_buf[0] = '\0';
	fail_init = NULL;
	min_cpus_c = 1;
	return 0;
}

static void reg(const struct msim_subsys *ss)
{
	assert_int_equal(msim_subsys_register(ss), 0);
	assert_true(*ss->id >= 1 && *ss->id <= MSIM_MAX_SUBSYS);
	assert_ptr_equal(msim_subsys_find(ss->name), ss);
}

static int create(unsigned int cpus, struct msim **m, char *err, size_t len)
{
	struct msim_config cfg;

	msim_config_init(&cfg);
	cfg.nr_cpus = cpus;
	*m = NULL;
	return msim_create(&cfg, m, err, len);
}

/* Registered in an order unlike the dependencies: the order still follows them. */
static void attach_follows_dependencies_and_detach_reverses(void **st)
{
	struct msim *m;
	char err[256] = "";

	reg(&ss_d);
	reg(&ss_a);
	reg(&ss_c);
	reg(&ss_b);
	assert_int_equal(create(2, &m, err, sizeof(err)), 0);
	assert_string_equal(log_buf, "init:t.c init:t.b init:t.a init:t.d");
	for (size_t i = 0; i < 4; i++)
		assert_true(msim_subsys_attached(m, all[i]));
	assert_int_equal(((struct t_state *)msim_subsys_state(m, &ss_b))->magic, T_MAGIC);
	assert_ptr_equal(msim_subsys_slot(m, &ss_b)[0], msim_subsys_state(m, &ss_b));
	log_buf[0] = '\0';
	msim_destroy(m);
	assert_string_equal(log_buf, "fini:t.d fini:t.a fini:t.b fini:t.c");
}

static void cycle_is_refused_with_its_path(void **st)
{
	struct msim *m;
	char err[256] = "";

	reg(&ss_x);
	reg(&ss_y);
	reg(&ss_z);
	assert_int_equal(create(2, &m, err, sizeof(err)), -EINVAL);
	assert_null(m);
	assert_string_equal(err, "subsystem dependency cycle: t.x -> t.y -> t.z -> t.x");
	assert_string_equal(log_buf, "");
	assert_int_equal(create(2, &m, NULL, 0), -EINVAL);
}

static void missing_dependency_is_refused(void **st)
{
	struct msim *m;
	char err[256] = "";

	reg(&ss_d);
	reg(&ss_lost);
	assert_int_equal(create(2, &m, err, sizeof(err)), -EINVAL);
	assert_null(m);
	assert_non_null(strstr(err, "t.lost depends on t.nowhere, which is not registered"));
	assert_string_equal(log_buf, "");
}

static void failed_init_unwinds_what_attached(void **st)
{
	struct msim *m;
	char err[256] = "";

	reg(&ss_a);
	reg(&ss_b);
	reg(&ss_c);
	reg(&ss_d);
	fail_init = "t.a";
	assert_int_equal(create(2, &m, err, sizeof(err)), -ENOMEM);
	assert_null(m);
	assert_non_null(strstr(err, "t.a"));
	assert_string_equal(log_buf, "init:t.c init:t.b init:t.a fini:t.b fini:t.c");
	/* Nothing stays attached: every subsystem may be unregistered. */
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(msim_subsys_unregister(all[i]), 0);
}

static void disabled_subsystem_is_skipped_and_its_dependents_refused(void **st)
{
	struct msim *m;
	char err[256] = "";

	min_cpus_c = 4;
	reg(&ss_c);
	reg(&ss_d);
	assert_int_equal(create(2, &m, err, sizeof(err)), 0);
	assert_string_equal(log_buf, "init:t.d");
	assert_false(msim_subsys_attached(m, &ss_c));
	assert_null(msim_subsys_state(m, &ss_c));
	msim_destroy(m);

	reg(&ss_b);
	log_buf[0] = '\0';
	assert_int_equal(create(2, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.b depends on t.c, which this configuration does not enable"));
	assert_string_equal(log_buf, "");
	assert_int_equal(create(4, &m, err, sizeof(err)), 0);
	assert_string_equal(log_buf, "init:t.c init:t.b init:t.d");
	msim_destroy(m);
}

/* By hand: dependencies first, once; unregistering waits for the host to go. */
static void attach_by_hand_and_unregister_while_attached(void **st)
{
	struct msim *m;
	char err[256] = "";

	assert_int_equal(create(2, &m, err, sizeof(err)), 0);
	reg(&ss_a);
	reg(&ss_b);
	reg(&ss_c);
	assert_null(msim_subsys_state(m, &ss_a));
	assert_int_equal(msim_subsys_attach(m, &ss_a, err, sizeof(err)), 0);
	assert_string_equal(log_buf, "init:t.c init:t.b init:t.a");
	assert_int_equal(msim_subsys_attach(m, &ss_a, err, sizeof(err)), 0);
	assert_string_equal(log_buf, "init:t.c init:t.b init:t.a");
	assert_int_equal(msim_subsys_unregister(&ss_b), -EBUSY);
	assert_int_equal(msim_subsys_attach(m, &ss_d, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.d is not registered"));
	log_buf[0] = '\0';
	msim_destroy(m);
	assert_string_equal(log_buf, "fini:t.a fini:t.b fini:t.c");
	assert_int_equal(msim_subsys_unregister(&ss_b), 0);
	assert_int_equal(*ss_b.id, 0);
	assert_int_equal(msim_subsys_unregister(&ss_b), -ENOENT);
}

static void hand_attach_failure_detaches_only_what_it_attached(void **st)
{
	struct msim *m;
	char err[256] = "";

	reg(&ss_c);
	assert_int_equal(create(2, &m, err, sizeof(err)), 0);
	reg(&ss_b);
	reg(&ss_a);
	fail_init = "t.a";
	log_buf[0] = '\0';
	assert_int_equal(msim_subsys_attach(m, &ss_a, err, sizeof(err)), -ENOMEM);
	assert_string_equal(log_buf, "init:t.b init:t.a fini:t.b");
	assert_true(msim_subsys_attached(m, &ss_c));
	assert_false(msim_subsys_attached(m, &ss_b));
	assert_null(msim_subsys_state(m, &ss_b));
	/* Retried without the failure, the state is zeroed again (t_init checks). */
	fail_init = NULL;
	assert_int_equal(msim_subsys_attach(m, &ss_a, err, sizeof(err)), 0);
	log_buf[0] = '\0';
	msim_destroy(m);
	assert_string_equal(log_buf, "fini:t.a fini:t.b fini:t.c");
}

static void on_destroy_log(struct msim *m, void *arg)
{
	(void)m;
	log_event("dtor", arg);
}

static void destructors_and_subsystems_share_one_stack(void **st)
{
	struct msim *m;

	reg(&ss_d);
	assert_int_equal(create(2, &m, NULL, 0), 0);
	assert_int_equal(msim_host_on_destroy(m, on_destroy_log, "late"), 0);
	log_buf[0] = '\0';
	msim_destroy(m);
	assert_string_equal(log_buf, "dtor:late fini:t.d");
}

static void registration_errors(void **st)
{
	const struct msim_subsys twin = T_SUBSYS("t.a", NULL), unnamed = T_SUBSYS("", NULL);

	reg(&ss_a);
	assert_int_equal(msim_subsys_register(&ss_a), 0); /* again: no-op */
	assert_int_equal(msim_subsys_register(&twin), -EEXIST);
	assert_int_equal(*twin.id, 0);
	assert_int_equal(msim_subsys_register(&unnamed), -EINVAL);
	/* A description without a place for its id cannot register (nor be found). */
	assert_int_equal(msim_subsys_register(&(const struct msim_subsys){ .name = "t.noid" }),
			 -EINVAL);
	assert_null(msim_subsys_find("t.noid"));
	assert_null(msim_subsys_find(NULL));
	assert_int_equal(msim_subsys_register(NULL), -EINVAL);
	assert_int_equal(msim_subsys_unregister(&twin), -ENOENT);
}

/* ---- variant rows: declared by the subsystem, stored at the slot it registered to ---- */

static const char *const knob_values[] = { "off", "on", "max", NULL };
static const char *const dial_values[] = { "low", "high", NULL };
static const struct msim_variant_desc v_rows[] = {
	{ "t-knob", knob_values, "a test row", "test" },
	{ "t-dial", dial_values, "a second test row", "test" },
	{ NULL, NULL, NULL, NULL },
};
static const struct msim_variant_desc w_rows[] = {
	{ "t-wheel", dial_values, "another subsystem's row", "test" },
	{ NULL, NULL, NULL, NULL },
};
static int knob_at_init = -1;

static int v_init(struct msim *m, void *state);
static const struct msim_subsys ss_v = { .name = "t.v", .host_init = v_init,
					 .variants = v_rows, .id = &(unsigned int){ 0 } };
static const struct msim_subsys ss_w = { .name = "t.w", .variants = w_rows,
					 .id = &(unsigned int){ 0 } };

/* What a layer does at host init: read its own row by slot, never by name. */
static int v_init(struct msim *m, void *state)
{
	(void)state;
	knob_at_init = msim_subsys_variant(&msim_config(m)->variants, &ss_v, 0);
	return 0;
}

static void variant_rows_join_the_table_at_their_slot(void **st)
{
	const struct msim_variant_desc *rows[MSIM_MAX_VARIANTS];
	unsigned int before = msim_variant_list(NULL, 0), n;
	struct msim_config cfg;
	char err[256], buf[MSIM_VARIANTS_STRLEN], *knob, *wheel;
	struct msim *m;

	(void)st;
	/* registered in the reverse of name order: the table lists t.v's rows first */
	reg(&ss_w);
	reg(&ss_v);
	n = msim_variant_list(rows, MSIM_MAX_VARIANTS);
	assert_int_equal(n, before + 3);
	msim_config_init(&cfg);
	assert_string_equal(msim_variant_get(&cfg.variants, "t-knob"), "off");
	assert_int_equal(msim_variant_set(&cfg.variants, "t-knob=max", err, sizeof(err)), 0);
	assert_int_equal(msim_variant_set_value(&cfg.variants, "t-wheel", 1), 0);
	assert_int_equal(msim_variant_set_value(&cfg.variants, "t-dial", 2), -EINVAL);
	assert_int_equal(msim_subsys_variant(&cfg.variants, &ss_v, 0), 2);
	assert_int_equal(msim_subsys_variant(&cfg.variants, &ss_v, 1), 0);
	assert_int_equal(msim_subsys_variant(&cfg.variants, &ss_w, 0), 1);
	msim_variants_format(&cfg.variants, buf, sizeof(buf));
	knob = strstr(buf, "t-knob=max,t-dial=low,");
	wheel = strstr(buf, "t-wheel=high");
	assert_non_null(knob);
	assert_non_null(wheel);
	assert_true(knob < wheel);
	/* the layer's host init reads the value the configuration set */
	cfg.nr_cpus = 2;
	assert_int_equal(msim_create(&cfg, &m, err, sizeof(err)), 0);
	assert_int_equal(knob_at_init, 2);
	msim_destroy(m);
	/* unregistered, its rows leave the table; a row's slot reads mainline */
	assert_int_equal(msim_subsys_unregister(&ss_v), 0);
	assert_int_equal(msim_subsys_unregister(&ss_w), 0);
	assert_int_equal(msim_variant_list(NULL, 0), before);
	assert_null(msim_variant_get(&cfg.variants, "t-knob"));
	assert_int_equal(msim_subsys_variant(&cfg.variants, &ss_v, 0), 0);
	assert_int_equal(msim_variant_set(&cfg.variants, "t-knob=on", err, sizeof(err)), -EINVAL);
}

/*
 * A freed registry id is handed out again: a value stored at t.v's slot (t-knob=max,
 * 2) must not reach t.w, which registers into that slot next and whose row has two
 * values only; it reads mainline instead.
 */
static void a_reused_slot_reads_no_value_its_row_lacks(void **st)
{
	struct msim_variants v;
	unsigned int slot;
	char err[256];

	(void)st;
	reg(&ss_v);
	slot = *ss_v.id;
	msim_variants_init(&v);
	assert_int_equal(msim_variant_set(&v, "t-knob=max", err, sizeof(err)), 0);
	assert_int_equal(msim_subsys_unregister(&ss_v), 0);
	reg(&ss_w); /* the lowest free id: the one t.v left */
	assert_int_equal(*ss_w.id, slot);
	assert_int_equal(msim_subsys_variant(&v, &ss_w, 0), 0);
	assert_int_equal(msim_subsys_variant(&v, &ss_w, 1), 0); /* no row 1 */
	assert_int_equal(msim_subsys_unregister(&ss_w), 0);
}

/* Misuse returns an error or nothing; it never writes through NULL. */
static void null_variants_are_refused(void **st)
{
	char err[256], buf[64] = "x";

	(void)st;
	assert_int_equal(msim_variant_set(NULL, "rstat-propagate=continue", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "no variants"));
	assert_int_equal(msim_preset_apply(NULL, "mainline", err, sizeof(err)), -EINVAL);
	assert_null(msim_variant_get(NULL, "rstat-propagate"));
	assert_int_equal(msim_variants_format(NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(msim_subsys_variant(NULL, msim_subsys_find("rstat"), 0), 0);
	msim_variants_init(NULL);
}

static void variant_row_errors(void **st)
{
	static const char *const none[] = { NULL };
	const struct msim_variant_desc taken[] = {
		{ "rstat-propagate", knob_values, "rstat's name", "test" }, { NULL, NULL, NULL, NULL } };
	const struct msim_variant_desc twice[] = {
		{ "t-twice", knob_values, "", "" }, { "t-twice", knob_values, "", "" },
		{ NULL, NULL, NULL, NULL } };
	const struct msim_variant_desc empty[] = {
		{ "t-empty", none, "", "" }, { NULL, NULL, NULL, NULL } };
	struct msim_variant_desc many[MSIM_SUBSYS_MAX_VARIANTS + 2];
	char names[MSIM_SUBSYS_MAX_VARIANTS + 1][16];
	const struct msim_subsys s_taken = { .name = "t.taken", .variants = taken,
					     .id = &(unsigned int){ 0 } };
	const struct msim_subsys s_twice = { .name = "t.twice", .variants = twice,
					     .id = &(unsigned int){ 0 } };
	const struct msim_subsys s_empty = { .name = "t.empty", .variants = empty,
					     .id = &(unsigned int){ 0 } };
	const struct msim_subsys s_many = { .name = "t.many", .variants = many,
					    .id = &(unsigned int){ 0 } };

	(void)st;
	assert_non_null(msim_subsys_find("rstat"));
	assert_int_equal(msim_subsys_register(&s_taken), -EEXIST);
	assert_int_equal(msim_subsys_register(&s_twice), -EEXIST);
	assert_int_equal(msim_subsys_register(&s_empty), -EINVAL);
	for (unsigned int i = 0; i <= MSIM_SUBSYS_MAX_VARIANTS; i++) {
		snprintf(names[i], sizeof(names[i]), "t-many-%u", i);
		many[i] = (struct msim_variant_desc){ names[i], knob_values, "", "" };
	}
	many[MSIM_SUBSYS_MAX_VARIANTS + 1] = (struct msim_variant_desc){ NULL, NULL, NULL, NULL };
	assert_int_equal(msim_subsys_register(&s_many), -EINVAL);
	/* one row fewer fits */
	many[MSIM_SUBSYS_MAX_VARIANTS].name = NULL;
	assert_int_equal(msim_subsys_register(&s_many), 0);
	assert_int_equal(msim_variant_set_value(&(struct msim_variants){ { { 0 } } },
						"t-many-15", 1), 0);
	assert_int_equal(msim_subsys_unregister(&s_many), 0);
	assert_null(msim_subsys_find("t.taken"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(attach_follows_dependencies_and_detach_reverses,
						reset, reset),
		cmocka_unit_test_setup_teardown(cycle_is_refused_with_its_path, reset, reset),
		cmocka_unit_test_setup_teardown(missing_dependency_is_refused, reset, reset),
		cmocka_unit_test_setup_teardown(failed_init_unwinds_what_attached, reset, reset),
		cmocka_unit_test_setup_teardown(
			disabled_subsystem_is_skipped_and_its_dependents_refused, reset, reset),
		cmocka_unit_test_setup_teardown(attach_by_hand_and_unregister_while_attached,
						reset, reset),
		cmocka_unit_test_setup_teardown(hand_attach_failure_detaches_only_what_it_attached,
						reset, reset),
		cmocka_unit_test_setup_teardown(destructors_and_subsystems_share_one_stack,
						reset, reset),
		cmocka_unit_test_setup_teardown(registration_errors, reset, reset),
		cmocka_unit_test_setup_teardown(variant_rows_join_the_table_at_their_slot,
						reset, reset),
		cmocka_unit_test_setup_teardown(variant_row_errors, reset, reset),
		cmocka_unit_test_setup_teardown(a_reused_slot_reads_no_value_its_row_lacks, reset,
						reset),
		cmocka_unit_test_setup_teardown(null_variants_are_refused, reset, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
