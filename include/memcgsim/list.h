/* SPDX-License-Identifier: MIT */
/*
 * list.h - the kernel's struct list_head (include/linux/list.h): a circular,
 * doubly linked list whose node lives inside the object it links.
 *
 * For the layers (and experiments) that keep objects on lists under a lock of
 * their own: objcg lists, LRU lists, list_lru. Nothing here is atomic or a yield point:
 * every operation must run under the lock that protects the list, as in the kernel.
 */
#ifndef MEMCGSIM_LIST_H
#define MEMCGSIM_LIST_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct msim_list_head {
	struct msim_list_head *next, *prev;
};

static inline void msim_init_list_head(struct msim_list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline bool msim_list_empty(const struct msim_list_head *h)
{
	return h->next == h;
}

static inline void msim_list_add_between(struct msim_list_head *n, struct msim_list_head *prev,
				     struct msim_list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

/* list_add(): at the head (the young end of an LRU list). */
static inline void msim_list_add(struct msim_list_head *n, struct msim_list_head *h)
{
	msim_list_add_between(n, h, h->next);
}

/* list_add_tail(): at the tail (the old end, where reclaim takes from). */
static inline void msim_list_add_tail(struct msim_list_head *n, struct msim_list_head *h)
{
	msim_list_add_between(n, h->prev, h);
}

/* list_del_init(): unlink and leave the node pointing at itself. */
static inline void msim_list_del_init(struct msim_list_head *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	msim_init_list_head(n);
}

static inline void msim_list_move(struct msim_list_head *n, struct msim_list_head *h)
{
	msim_list_del_init(n);
	msim_list_add(n, h);
}

static inline void msim_list_move_tail(struct msim_list_head *n, struct msim_list_head *h)
{
	msim_list_del_init(n);
	msim_list_add_tail(n, h);
}

/* Join the nodes of list between prev and next; list itself is left as it was. */
static inline void msim_list_splice_between(const struct msim_list_head *list, struct msim_list_head *prev,
				   struct msim_list_head *next)
{
	struct msim_list_head *first = list->next, *last = list->prev;

	first->prev = prev;
	prev->next = first;
	last->next = next;
	next->prev = last;
}

/* list_splice_init(): move every node of list to the head of h; list becomes empty. */
static inline void msim_list_splice_init(struct msim_list_head *list, struct msim_list_head *h)
{
	if (msim_list_empty(list))
		return;
	msim_list_splice_between(list, h, h->next);
	msim_init_list_head(list);
}

/* list_splice_tail_init(): the same, at the tail of h. */
static inline void msim_list_splice_tail_init(struct msim_list_head *list, struct msim_list_head *h)
{
	if (msim_list_empty(list))
		return;
	msim_list_splice_between(list, h->prev, h);
	msim_init_list_head(list);
}

/* Number of nodes (walks the list: introspection only). */
static inline size_t msim_list_count(const struct msim_list_head *h)
{
	size_t n = 0;

	for (const struct msim_list_head *p = h->next; p != h; p = p->next)
		n++;
	return n;
}

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_LIST_H */
