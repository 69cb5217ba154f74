/* SPDX-License-Identifier: MIT */
/*
 * page_counter.c - the hierarchical page counter (kernel: mm/page_counter.c).
 *
 * usage is an atomic long per level. A charge adds speculatively at each level
 * walking up and checks the limit after the add; a level that went over is
 * subtracted again and every level below it is cancelled. There is no CAS loop,
 * so two racing chargers can both fail although one of them alone would have fit
 * (the kernel accepts this: the failure only sends the charger to reclaim).
 *
 * Simplifications (docs/charge.md): no min/low protection (propagate_protected_usage
 * is not modelled: the model's memcgs set no protection); failcnt is always
 * tracked; the underflow WARN_ONCE is a counter plus one line on stderr per
 * process.
 */
#include <errno.h>
#include <stdio.h>

#include <memcgsim/charge.h>

void msim_page_counter_init(struct msim_page_counter *c, struct msim_page_counter *parent)
{
	msim_quiet_store(&c->usage.counter, 0, MSIM_RELAXED);  /* not shared yet */
	c->max = MSIM_PAGE_COUNTER_MAX;
	c->high = MSIM_PAGE_COUNTER_MAX;
	c->watermark = 0;
	c->local_watermark = 0;
	c->failcnt = 0;
	c->underflows = 0;
	c->parent = parent;
}

/* kernel: page_counter_read() - atomic_long_read(&counter->usage). */
unsigned long msim_page_counter_read(const struct msim_page_counter *c)
{
	long v = msim_atomic_long_read(&c->usage);

	return v < 0 ? 0 : (unsigned long)v;
}

/*
 * The watermark update of page_counter_charge/try_charge: racy on purpose (the
 * kernel uses plain READ_ONCE/WRITE_ONCE; a lost update only under-reports the
 * peak by one racing charge). No yield point: no race of the model is about the
 * peak; a scenario that wants the lost update would name this window.
 */
static void update_watermarks(struct msim_page_counter *c, long new)
{
	if ((unsigned long)new > msim_quiet_load(&c->local_watermark, MSIM_RELAXED)) {
		msim_quiet_store(&c->local_watermark, (unsigned long)new, MSIM_RELAXED);
		if ((unsigned long)new > msim_quiet_load(&c->watermark, MSIM_RELAXED))
			msim_quiet_store(&c->watermark, (unsigned long)new, MSIM_RELAXED);
	}
}

/* kernel: mm/page_counter.c page_counter_charge() */
void msim_page_counter_charge(struct msim_page_counter *counter, unsigned long nr_pages)
{
	struct msim_page_counter *c;

	for (c = counter; c; c = c->parent)
		update_watermarks(c, msim_atomic_long_add_return(&c->usage, (long)nr_pages));
}

/* kernel: mm/page_counter.c page_counter_cancel() */
void msim_page_counter_cancel(struct msim_page_counter *c, unsigned long nr_pages)
{
	static int warned; /* WARN_ONCE: once per process */
	long new = msim_atomic_long_add_return(&c->usage, -(long)nr_pages);

	if (new < 0) {
		msim_quiet_fetch_add(&c->underflows, 1, MSIM_RELAXED);
		if (!msim_quiet_xchg(&warned, 1, MSIM_RELAXED))
			fprintf(stderr, "memcgsim: WARNING: page_counter underflow: %ld nr_pages=%lu\n",
				new, nr_pages);
		msim_atomic_long_set(&c->usage, 0);
	}
}

/* kernel: mm/page_counter.c page_counter_try_charge() */
bool msim_page_counter_try_charge(struct msim_page_counter *counter, unsigned long nr_pages,
				  struct msim_page_counter **fail)
{
	struct msim_page_counter *c;

	for (c = counter; c; c = c->parent) {
		/*
		 * Speculative add, then the limit test: the window between the two
		 * is where a racing charger sees this charge and fails instead.
		 */
		long new = msim_atomic_long_add_return(&c->usage, (long)nr_pages);

		if ((unsigned long)new > msim_read_once_ul(&c->max)) {
			msim_atomic_long_add(&c->usage, -(long)nr_pages);
			/*
			 * data_race(c->failcnt++) in the kernel: racy by design, and
			 * no yield: a lost count is a report's, no race turns on it.
			 */
			msim_quiet_store(&c->failcnt, msim_quiet_load(&c->failcnt, MSIM_RELAXED) + 1,
					 MSIM_RELAXED);
			*fail = c;
			goto failed;
		}
		update_watermarks(c, new);
	}
	return true;

failed:
	for (c = counter; c != *fail; c = c->parent)
		msim_page_counter_cancel(c, nr_pages);
	return false;
}

/* kernel: mm/page_counter.c page_counter_uncharge() */
void msim_page_counter_uncharge(struct msim_page_counter *counter, unsigned long nr_pages)
{
	struct msim_page_counter *c;

	for (c = counter; c; c = c->parent)
		msim_page_counter_cancel(c, nr_pages);
}

/* kernel: mm/page_counter.c page_counter_set_max() */
int msim_page_counter_set_max(struct msim_page_counter *c, unsigned long nr_pages)
{
	for (;;) {
		unsigned long usage = msim_page_counter_read(c);
		unsigned long old;

		if (usage > nr_pages)
			return -EBUSY;
		old = msim_xchg_at(&c->max, nr_pages, MSIM_SEQ_CST, "page_counter.set_max.xchg");
		/*
		 * A charger that raced past the old limit after our usage read
		 * would now sit above the new one: retry unless usage did not
		 * grow or the limit was raised.
		 */
		if (msim_page_counter_read(c) <= usage || nr_pages >= old)
			return 0;
		msim_write_once_ul(&c->max, old);
	}
}

/* kernel: mm/page_counter.c page_counter_set_high() */
void msim_page_counter_set_high(struct msim_page_counter *c, unsigned long nr_pages)
{
	msim_write_once_ul(&c->high, nr_pages);
}
