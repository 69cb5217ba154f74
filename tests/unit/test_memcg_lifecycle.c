/* SPDX-License-Identifier: MIT */
/*
 * test_memcg_lifecycle.c - the memcg tree's lifecycle (src/memcg/tree.c, css.c, id.c).
 *
 *   hook_order            alloc/online/offline ascending, released/free descending,
 *                         equal orders in registration order
 *   online_failure_undo   a failing css_online undoes what ran, returns its error
 *   alloc_failure_undo    a failing css_alloc undoes the earlier allocs
 *   late_hooks_run_on_root  hooks registered after the root run on it at once
 *   private_id_reuse      lowest free id; freed at offline; kmemcg_id
 *   private_id_ref        a held id reference keeps the id and the css
 *   rmdir_ebusy_einval    -EBUSY with live children; -EINVAL for root, twice, dead parent
 *   states_and_refs       DYING -> OFFLINE -> RELEASED -> FREED, tryget vs tryget_online
 *   enospc_at_65535       65535 ids (root + 65534), then -ENOSPC; reuse after rmdir
 *   freed_handle_caught   the debug check rejects a freed handle
 *   kmem_charged          struct mem_cgroup and mem_cgroup_per_node in their caches
 *   task_rmdir_waits_gp   (deterministic) rmdir from a task waits for a reader
 *   driver_rmdir          (deterministic) rmdir from the driver
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>

#include "memcg/memcg_internal.h"

#include "unit_util.h"

/* ---- helpers ---- */

/* ---- a fake subsystem that records its calls ---- */

static char hook_log[4096];
static int fail_online_of;   /* order of the set whose css_online fails, or 0 */
static int fail_alloc_of;

static void log_call(const char *what, void *priv)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s%s:%s", hook_log[0] ? " " : "", (const char *)priv, what);
	strncat(hook_log, buf, sizeof(hook_log) - strlen(hook_log) - 1);
}

static int fake_order(void *priv)
{
	return atoi((const char *)priv + 1); /* "a10" -> 10 */
}

static int fake_alloc(struct msim_memcg *memcg, void *priv)
{
	if (fail_alloc_of && fake_order(priv) == fail_alloc_of) {
		log_call("alloc!", priv);
		return -ENOMEM;
	}
	log_call("alloc", priv);
	return 0;
}

static int fake_online(struct msim_memcg *memcg, void *priv)
{
	if (fail_online_of && fake_order(priv) == fail_online_of) {
		log_call("online!", priv);
		return -EIO;
	}
	log_call("online", priv);
	return 0;
}

static void fake_offline(struct msim_memcg *memcg, void *priv) { log_call("offline", priv); }
static void fake_released(struct msim_memcg *memcg, void *priv) { log_call("released", priv); }
static void fake_free(struct msim_memcg *memcg, void *priv) { log_call("free", priv); }
static void fake_undo(struct msim_memcg *memcg, void *priv) { log_call("undo", priv); }

static int register_fake(struct msim *m, const char *name, int order)
{
	struct msim_memcg_hooks hk = {
		.name = name, .order = order, .priv = (void *)name,
		.css_alloc = fake_alloc, .css_online = fake_online, .css_offline = fake_offline,
		.css_released = fake_released, .css_free = fake_free, .css_alloc_undo = fake_undo,
	};

	return msim_memcg_register_hooks(m, &hk);
}

/* Sets registered out of order, two with the same order (kept in registration order). */
static struct msim *host_with_fakes(void)
{
	struct msim *m = unit_host(4, 1);

	assert_int_equal(register_fake(m, "c50", 50), 0);
	assert_int_equal(register_fake(m, "a10", 10), 1);
	assert_int_equal(register_fake(m, "b30", 30), 2);
	assert_int_equal(register_fake(m, "d30", 30), 3);
	hook_log[0] = 0;
	fail_online_of = fail_alloc_of = 0;
	return m;
}

static void hook_order(void **state)
{
	struct msim *m = host_with_fakes();
	struct msim_memcg *root = msim_root_mem_cgroup(m), *a;

	assert_string_equal(hook_log, "a10:alloc b30:alloc d30:alloc c50:alloc "
				      "a10:online b30:online d30:online c50:online");
	hook_log[0] = 0;
	a = unit_mkdir(root, "a");
	assert_string_equal(hook_log, "a10:alloc b30:alloc d30:alloc c50:alloc "
				      "a10:online b30:online d30:online c50:online");
	hook_log[0] = 0;
	assert_int_equal(msim_memcg_rmdir(a), 0);
	/* The last reference went at offline: release and free wait for callbacks. */
	assert_string_equal(hook_log, "a10:offline b30:offline d30:offline c50:offline");
	hook_log[0] = 0;
	msim_memcg_drain(m);
	assert_string_equal(hook_log, "c50:released d30:released b30:released a10:released "
				      "c50:free d30:free b30:free a10:free");
	hook_log[0] = 0;
	msim_destroy(m);
	/* The root goes at msim_destroy(): released and free, no offline. */
	assert_string_equal(hook_log, "c50:released d30:released b30:released a10:released "
				      "c50:free d30:free b30:free a10:free");
}

static void online_failure_undo(void **state)
{
	struct msim *m = host_with_fakes();
	struct msim_memcg *root = msim_root_mem_cgroup(m), *x = NULL;
	struct msim_memcg_counts c;

	hook_log[0] = 0;
	fail_online_of = 30; /* b30 fails: a10 onlined before it */
	assert_int_equal(msim_memcg_create(root, "x", &x), -EIO);
	assert_null(x);
	assert_string_equal(hook_log, "a10:alloc b30:alloc d30:alloc c50:alloc "
				      "a10:online b30:online! a10:offline "
				      "c50:undo d30:undo b30:undo a10:undo");
	hook_log[0] = 0;
	msim_memcg_drain(m);
	assert_string_equal(hook_log, ""); /* nothing left to release or free */
	msim_memcg_counts(m, &c);
	assert_int_equal(c.online, 1);
	assert_int_equal(c.created_total, 1);
	assert_int_equal(c.freed_total, 0);
	/* The reserved id went back: the next mkdir gets 2. */
	fail_online_of = 0;
	x = unit_mkdir(root, "y");
	assert_int_equal(msim_mem_cgroup_private_id(x), 2);
	msim_destroy(m);
}

static void alloc_failure_undo(void **state)
{
	struct msim *m = host_with_fakes();
	struct msim_memcg *root = msim_root_mem_cgroup(m), *x = NULL;

	hook_log[0] = 0;
	fail_alloc_of = 30;
	assert_int_equal(msim_memcg_create(root, "x", &x), -ENOMEM);
	assert_string_equal(hook_log, "a10:alloc b30:alloc! a10:undo");
	fail_alloc_of = 0;
	x = unit_mkdir(root, "y");
	assert_int_equal(msim_mem_cgroup_private_id(x), 2);
	assert_int_equal(msim_memcg_serial(x), 1);
	msim_destroy(m);
}

static int late_slot = -1;

static int late_alloc(struct msim_memcg *memcg, void *priv)
{
	late_slot = msim_memcg_hooks_slot(msim_memcg_host(memcg), "late");
	*msim_memcg_slot(memcg, late_slot) = priv;
	return 0;
}

static void late_hooks_run_on_root(void **state)
{
	struct msim *m = unit_host(2, 1);
	struct msim_memcg *root = msim_root_mem_cgroup(m);
	static char data[] = "late data";
	struct msim_memcg_hooks hk = { .name = "late", .order = 1, .priv = data,
				       .css_alloc = late_alloc };

	assert_int_equal(msim_memcg_register_hooks(m, &hk), 0);
	assert_int_equal(late_slot, 0);
	assert_ptr_equal(*msim_memcg_slot(root, 0), data);
	assert_int_equal(msim_memcg_hooks_slot(m, "nope"), -ENOENT);
	msim_destroy(m);
}

static void private_id_reuse(void **state)
{
	struct msim *m = unit_host(4, 1);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *a, *b, *c, *d;

	assert_int_equal(msim_mem_cgroup_private_id(root), 1);
	assert_int_equal(msim_memcg_kmemcg_id(root), -1);
	assert_true(msim_mem_cgroup_is_root(root));
	a = unit_mkdir(root, "a");
	b = unit_mkdir(root, "b");
	c = unit_mkdir(root, "c");
	assert_int_equal(msim_mem_cgroup_private_id(a), 2);
	assert_int_equal(msim_mem_cgroup_private_id(b), 3);
	assert_int_equal(msim_mem_cgroup_private_id(c), 4);
	assert_int_equal(msim_memcg_kmemcg_id(b), 3);
	msim_rcu_read_lock();
	assert_ptr_equal(msim_mem_cgroup_from_private_id(m, 3), b);
	msim_rcu_read_unlock();
	assert_int_equal(msim_memcg_rmdir(b), 0);
	/* The online id reference was the last: the id is free at once. */
	msim_rcu_read_lock();
	assert_null(msim_mem_cgroup_from_private_id(m, 3));
	msim_rcu_read_unlock();
	d = unit_mkdir(root, "d");
	assert_int_equal(msim_mem_cgroup_private_id(d), 3);
	assert_int_equal(msim_memcg_kmemcg_id(d), 3);
	assert_int_equal(msim_memcg_serial(d), 4); /* serials are never reused */
	assert_string_equal(msim_memcg_name(d), "d");
	assert_int_equal(msim_memcg_level(d), 1);
	assert_ptr_equal(msim_parent_mem_cgroup(d), root);
	msim_destroy(m);
}

static void private_id_ref(void **state)
{
	struct msim *m = unit_host(4, 1);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *a, *b;
	struct msim_memcg_counts c;

	a = unit_mkdir(root, "a");
	msim_mem_cgroup_private_id_get(a); /* a swap entry records a's id */
	assert_int_equal(msim_memcg_rmdir(a), 0);
	assert_int_equal(msim_memcg_state(a), MSIM_MEMCG_OFFLINE);
	assert_int_equal(msim_mem_cgroup_private_id(a), 2);
	msim_rcu_read_lock();
	assert_ptr_equal(msim_mem_cgroup_from_private_id(m, 2), a);
	msim_rcu_read_unlock();
	b = unit_mkdir(root, "b");
	assert_int_equal(msim_mem_cgroup_private_id(b), 3);
	msim_mem_cgroup_private_id_put(a); /* the swap entry goes */
	assert_int_equal(msim_mem_cgroup_private_id(a), 0);
	assert_int_equal(msim_memcg_state(a), MSIM_MEMCG_RELEASED);
	msim_memcg_drain(m);
	msim_memcg_counts(m, &c);
	assert_int_equal(c.freed_total, 1);
	assert_int_equal(c.released, 0);
	msim_destroy(m);
}

static void rmdir_ebusy_einval(void **state)
{
	struct msim *m = unit_host(4, 1);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *p, *ch, *x = NULL;
	struct msim_memcg_counts c;

	p = unit_mkdir(root, "p");
	ch = unit_mkdir(p, "ch");
	assert_int_equal(msim_memcg_rmdir(p), -EBUSY);
	assert_false(msim_css_is_dying(p));
	assert_int_equal(msim_memcg_rmdir(root), -EINVAL);
	assert_int_equal(msim_memcg_rmdir(NULL), -EINVAL);
	msim_css_get(ch);
	assert_int_equal(msim_memcg_rmdir(ch), 0);
	assert_int_equal(msim_memcg_rmdir(ch), -EINVAL); /* already removed */
	/* An offline child does not keep its parent busy (it still pins it). */
	msim_css_get(p);
	assert_int_equal(msim_memcg_rmdir(p), 0);
	assert_int_equal(msim_memcg_create(p, "late", &x), -EINVAL);
	assert_int_equal(msim_memcg_create(root, "n", NULL), -EINVAL);
	assert_int_equal(msim_memcg_state(p), MSIM_MEMCG_OFFLINE);
	msim_css_put(ch);
	msim_memcg_drain(m);
	assert_int_equal(msim_memcg_state(p), MSIM_MEMCG_OFFLINE);
	msim_css_put(p);
	msim_memcg_drain(m);
	/* p is freed now (its handle is checked only in freed_handle_caught). */
	msim_memcg_counts(m, &c);
	assert_int_equal(c.freed_total, 2);
	assert_int_equal(c.offline + c.released, 0);
	msim_destroy(m);
}

static void states_and_refs(void **state)
{
	struct msim *m = unit_host(4, 1);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *a;
	struct msim_memcg_counts c;

	a = unit_mkdir(root, "a");
	assert_int_equal(msim_memcg_state(a), MSIM_MEMCG_ONLINE);
	assert_true(msim_mem_cgroup_online(a));
	assert_true(msim_css_tryget_online(a));
	msim_css_put(a);
	msim_css_get(a);
	assert_int_equal(msim_memcg_rmdir(a), 0);
	assert_true(msim_css_is_dying(a));
	assert_false(msim_mem_cgroup_online(a));
	assert_int_equal(msim_memcg_state(a), MSIM_MEMCG_OFFLINE);
	assert_false(msim_css_tryget_online(a));
	assert_true(msim_css_tryget(a));
	msim_css_put(a);
	msim_memcg_counts(m, &c);
	assert_int_equal(c.online, 1);
	assert_int_equal(c.offline, 1);
	assert_int_equal(c.created_total, 2);
	msim_css_put(a);
	assert_int_equal(msim_memcg_state(a), MSIM_MEMCG_RELEASED);
	assert_false(msim_css_tryget(a));
	msim_memcg_counts(m, &c);
	assert_int_equal(c.offline, 0);
	assert_int_equal(c.released, 1);
	msim_memcg_drain(m);
	msim_memcg_counts(m, &c);
	assert_int_equal(c.released, 0);
	assert_int_equal(c.freed_total, 1);
	assert_int_equal(c.online, 1);
	msim_destroy(m);
}

/* Root holds id 1; 65534 children take 2..65535; the next mkdir finds no id. */
static void enospc_at_65535(void **state)
{
	struct msim *m = unit_host(2, 1);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *x = NULL, *victim = NULL;
	struct msim_memcg_counts c;
	unsigned int i;

	for (i = 2; i <= MSIM_MEM_CGROUP_ID_MAX; i++) {
		assert_int_equal(msim_memcg_create(root, NULL, &x), 0);
		if (i == 40000)
			victim = x;
	}
	assert_int_equal(msim_mem_cgroup_private_id(x), MSIM_MEM_CGROUP_ID_MAX);
	assert_int_equal(msim_memcg_create(root, NULL, &x), -ENOSPC);
	msim_memcg_counts(m, &c);
	assert_int_equal(c.online, MSIM_MEM_CGROUP_ID_MAX);
	assert_int_equal(msim_memcg_rmdir(victim), 0);
	assert_int_equal(msim_memcg_create(root, NULL, &x), 0);
	assert_int_equal(msim_mem_cgroup_private_id(x), 40000);
	assert_int_equal(msim_memcg_create(root, NULL, &x), -ENOSPC);
	msim_destroy(m);
}

static void freed_handle_caught(void **state)
{
	struct msim *m = unit_host(2, 1);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *a;

	if (!msim__memcg_quarantine_enabled()) {
		msim_destroy(m);
		skip(); /* NDEBUG build: freed memcgs go back to malloc */
	}
	a = unit_mkdir(root, "a");
	assert_true(msim__memcg_check(a));
	assert_int_equal(msim_memcg_rmdir(a), 0);
	assert_true(msim__memcg_check(a)); /* released, free pending a grace period */
	msim_memcg_drain(m);
	assert_false(msim__memcg_check(a));
	assert_int_equal(msim_memcg_state(a), MSIM_MEMCG_FREED);
	assert_false(msim__memcg_check(NULL));
	msim_destroy(m);
}

/*
 * struct mem_cgroup (2304 + 8 per node, 64-aligned) and one mem_cgroup_per_node
 * per node (2896 -> 2944), from their dedicated caches; plus, per css, the
 * 56-byte percpu_ref_data of its refcnt in kmalloc-64.
 */
static void kmem_charged(void **state)
{
	struct msim *m = unit_host(4, 2);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *a;
	struct msim__memcg_host *h = root->h;
	struct msim_kmem_cache_info ci, pi;

	a = unit_mkdir(root, "a");
	unit_mkdir(a, "b");
	msim_kmem_cache_info(h->memcg_cache, &ci);
	msim_kmem_cache_info(h->pn_cache, &pi);
	assert_int_equal(ci.object_size, 2320);
	assert_int_equal(ci.slot_size, 2368);
	assert_int_equal(ci.objects, 3);
	assert_int_equal(pi.object_size, 2896);
	assert_int_equal(pi.slot_size, 2944);
	assert_int_equal(pi.objects, 6);
	/* Each object is charged its share of a slab, the total rounded to a byte. */
	assert_int_equal(msim_kmem_owner_bytes(m, "mem_cgroup"),
			 (3 * ci.slab_bytes + ci.objects_per_slab / 2) / ci.objects_per_slab +
				 3 * 64);
	assert_int_equal(msim_kmem_owner_bytes(m, "mem_cgroup_per_node"),
			 (6 * pi.slab_bytes + pi.objects_per_slab / 2) / pi.objects_per_slab);
	msim_destroy(m);
}

/*
 * The cgroup core of a mkdir (owner "cgroup"): struct cgroup (2200 bytes,
 * kmalloc-4k), two percpu_ref_data (kmalloc-64 each), psi_group (700 bytes,
 * kmalloc-1k), the name ("a": kmalloc-8), and 38 kernfs nodes (the directory and
 * 37 files, 136 bytes, 30 to an order-0 slab). rmdir drops the 37 file nodes at
 * once, the free the rest. The root pays none of it.
 */
static void cgroup_core_charged(void **state)
{
	struct msim *m = unit_host(4, 2);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *a, *b;
	struct msim__memcg_host *h = root->h;
	struct msim_kmem_cache_info ki;
	const uint64_t per_cgroup_kmalloc = 4096 + 64 + 64 + 1024 + 8;

	msim_kmem_cache_info(h->kernfs_cache, &ki);
	assert_int_equal(ki.slot_size, 136);
	assert_int_equal(ki.objects_per_slab, 30);
	assert_int_equal(ki.objects, 0);
	assert_int_equal(msim_kmem_owner_bytes(m, "cgroup"), 0);
	a = unit_mkdir(root, "a");
	b = unit_mkdir(a, "b");
	msim_kmem_cache_info(h->kernfs_cache, &ki);
	assert_int_equal(ki.objects, 2 * 38);
	assert_int_equal(msim_kmem_owner_bytes(m, "cgroup"),
			 2 * per_cgroup_kmalloc + (76 * 4096 + 15) / 30);
	assert_int_equal(msim_memcg_rmdir(b), 0);
	msim_kmem_cache_info(h->kernfs_cache, &ki);
	assert_true(ki.objects == 38 + 1 || ki.objects == 38); /* b's directory: until its free */
	msim_memcg_drain(m);
	msim_kmem_cache_info(h->kernfs_cache, &ki);
	assert_int_equal(ki.objects, 38);
	assert_int_equal(msim_kmem_owner_bytes(m, "cgroup"),
			 per_cgroup_kmalloc + (38 * 4096 + 15) / 30);
	msim_destroy(m);
}

/* ---- deterministic mode: rmdir from a task, from the driver ---- */

struct reader_arg {
	struct msim *m;
	unsigned short id;
	struct msim_memcg *seen;
};

static void reader_fn(void *arg)
{
	struct reader_arg *r = arg;

	msim_rcu_read_lock();
	r->seen = msim_mem_cgroup_from_private_id(r->m, r->id);
	msim_yield("test.reader.inside");
	msim_rcu_read_unlock();
}

static int rmdir_ret = 1;

/* Tasks never call cmocka: the result is asserted by the driver. */
static void rmdir_fn(void *arg)
{
	rmdir_ret = msim_memcg_rmdir(arg);
}

/*
 * The grace period between CSS_DYING and css_offline:
 *
 *   CPU 0 (reader)                     | CPU 1 (rmdir)
 *   rcu_read_lock()                    |
 *   memcg = from_private_id(id)        |
 *                                      | CSS_DYING
 *                                      | synchronize_rcu()  ... blocks
 *   rcu_read_unlock()                  |
 *                                      | css_offline hooks, id put
 */
static void task_rmdir_waits_gp(void **state)
{
	struct msim *m = host_with_fakes();
	struct msim_memcg *root = msim_root_mem_cgroup(m), *a;
	struct reader_arg r = { .m = m };
	struct msim_task *tr, *tw;

	a = unit_mkdir(root, "a");
	r.id = msim_mem_cgroup_private_id(a);
	tr = msim_task_create(m, "reader", 0, reader_fn, &r);
	tw = msim_task_create(m, "rmdir", 1, rmdir_fn, a);
	assert_int_equal(msim_run_until(m, tr, "test.reader.inside", 1), 0);
	assert_ptr_equal(r.seen, a);
	hook_log[0] = 0;
	assert_int_equal(msim_run_task(m, tw), -EDEADLK); /* waits for the reader */
	assert_true(msim_css_is_dying(a));
	assert_int_equal(msim_memcg_state(a), MSIM_MEMCG_DYING);
	assert_string_equal(hook_log, "");
	assert_int_equal(msim_run_task(m, tr), 0);
	while (msim_rcu_step(m))
		;
	assert_int_equal(msim_run_task(m, tw), 0);
	assert_int_equal(rmdir_ret, 0);
	assert_string_equal(hook_log, "a10:offline b30:offline d30:offline c50:offline");
	assert_int_equal(msim_memcg_state(a), MSIM_MEMCG_RELEASED);
	msim_memcg_drain(m);
	msim_destroy(m);
}

static void driver_rmdir(void **state)
{
	struct msim *m = unit_host(2, 1);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *a, *b;
	struct msim_memcg_counts c;

	a = unit_mkdir(root, "a");
	b = unit_mkdir(a, "b");
	assert_int_equal(msim_memcg_level(b), 2);
	assert_int_equal(msim_memcg_rmdir(b), 0);
	assert_int_equal(msim_memcg_rmdir(a), 0);
	/* b pins its parent until b is freed: a waits OFFLINE. */
	msim_memcg_counts(m, &c);
	assert_int_equal(c.released, 1);
	assert_int_equal(c.offline, 1);
	assert_int_equal(msim_memcg_state(a), MSIM_MEMCG_OFFLINE);
	msim_memcg_drain(m);
	msim_memcg_counts(m, &c);
	assert_int_equal(c.released, 0);
	assert_int_equal(c.freed_total, 2);
	assert_int_equal(c.online, 1);
	assert_int_equal(c.created_total, 3);
	msim_destroy(m);
}

/*
 * Every layer's hook set, on a host with them all, is placed by name in the
 * lifecycle table (src/memcg/lifecycle.c), and each phase runs them in the
 * kernel's order: mem_cgroup_css_alloc(), _online(), _offline(), _released(),
 * _free(), and the undo of a failed css_alloc mirroring css_alloc.
 */
/*
 * Hosts of one process share the plans they make (lifecycle.c's memo): a host
 * whose sets have the same names but other orders, or a table-named set in
 * another slot, gets its own plan, and a host like an earlier one gets the
 * earlier one's.
 */
static void lifecycle_order_of(const char *a, int order_a, const char *b, int order_b,
			       const char *want_alloc, const char *want_free)
{
	struct msim *m = unit_host(2, 1);
	char names[256];

	assert_true(register_fake(m, a, order_a) >= 0);
	assert_true(register_fake(m, b, order_b) >= 0);
	msim__memcg_lifecycle_order(m, MSIM__CSS_ALLOC, names, sizeof(names));
	assert_string_equal(names, want_alloc);
	msim__memcg_lifecycle_order(m, MSIM__CSS_FREE, names, sizeof(names));
	assert_string_equal(names, want_free);
	msim_destroy(m);
}

static void plans_shared_between_hosts(void **state)
{
	(void)state;
	lifecycle_order_of("p", 50, "q", 10, "q p", "p q");
	lifecycle_order_of("p", 5, "q", 10, "p q", "q p");     /* same names, other orders */
	lifecycle_order_of("p", 50, "q", 10, "q p", "p q");     /* as the first host */
	/* a set the table names runs at its step, whatever its order or slot */
	lifecycle_order_of("zswap", 99, "x", 0, "zswap x", "x zswap");
	lifecycle_order_of("x", 0, "zswap", 99, "zswap x", "x zswap");
	lifecycle_order_of("x", 0, "y", 99, "x y", "y x");      /* neither named */
}

static void lifecycle_table_orders_every_layer(void **state)
{
	static const char *const want[] = {
		"rstat zswap workingset lru objcg charge",
		"shrinker_info objcg",
		"zswap list_lru objcg rstat-local-reparent shrinker_deferred charge",
		"rstat",
		"charge damon objcg lru workingset shrinker_info zswap rstat",
		"charge objcg lru workingset zswap rstat",
	};
	struct msim_config cfg = unit_config(2, 1);
	char err[256], names[512];
	struct msim *m;

	(void)state;
	cfg.rstat = cfg.charge = cfg.shrinker = true;
	m = unit_host_cfg(&cfg);
	assert_int_equal(msim_lru_attach(m, err, sizeof(err)), 0);
	assert_int_equal(msim_workingset_attach(m, err, sizeof(err)), 0);
	assert_int_equal(msim_zswap_attach(m, NULL, err, sizeof(err)), 0);
	assert_int_equal(msim_damon_attach(m, err, sizeof(err)), 0);
	assert_int_equal(msim__memcg_lifecycle_unnamed(m, names, sizeof(names)), 0);
	for (int p = 0; p < MSIM__NR_CSS_PHASES; p++) {
		msim__memcg_lifecycle_order(m, p, names, sizeof(names));
		assert_string_equal(names, want[p]);
	}
	/* A set the table does not name runs after the steps, before them in teardown. */
	assert_true(register_fake(m, "x", 0) >= 0);
	msim__memcg_lifecycle_order(m, MSIM__CSS_OFFLINE, names, sizeof(names));
	assert_string_equal(names, "zswap list_lru objcg rstat-local-reparent shrinker_deferred "
				   "charge x");
	msim__memcg_lifecycle_order(m, MSIM__CSS_FREE, names, sizeof(names));
	assert_string_equal(names, "x charge damon objcg lru workingset shrinker_info zswap rstat");
	assert_int_equal(msim__memcg_lifecycle_unnamed(m, names, sizeof(names)), 6);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hook_order),
		cmocka_unit_test(lifecycle_table_orders_every_layer),
		cmocka_unit_test(plans_shared_between_hosts),
		cmocka_unit_test(online_failure_undo),
		cmocka_unit_test(alloc_failure_undo),
		cmocka_unit_test(late_hooks_run_on_root),
		cmocka_unit_test(private_id_reuse),
		cmocka_unit_test(private_id_ref),
		cmocka_unit_test(rmdir_ebusy_einval),
		cmocka_unit_test(states_and_refs),
		cmocka_unit_test(enospc_at_65535),
		cmocka_unit_test(freed_handle_caught),
		cmocka_unit_test(kmem_charged),
		cmocka_unit_test(cgroup_core_charged),
		cmocka_unit_test(task_rmdir_waits_gp),
		cmocka_unit_test(driver_rmdir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
