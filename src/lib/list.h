/* SPDX-License-Identifier: MIT */
/*
 * list.h - the kernel's struct list_head (include/linux/list.h): a circular,
 * doubly linked list whose node lives inside the object it links.
 *
 * Internal to the library, for the layers that keep objects on lists under a lock
 * of their own (objcg lists, LRU lists). Nothing here is atomic or a yield point:
 * every operation must run under the lock that protects the list, as in the kernel.
 */
#ifndef MSIM_LIB_LIST_H
#define MSIM_LIB_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct msim__list {
	struct msim__list *next, *prev;
};

static inline void msim__list_init(struct msim__list *h)
{
	h->next = h;
	h->prev = h;
}

static inline bool msim__list_empty(const struct msim__list *h)
{
	return h->next == h;
}

static inline void msim__list_insert(struct msim__list *n, struct msim__list *prev,
				     struct msim__list *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

/* list_add(): at the head (the young end of an LRU list). */
static inline void msim__list_add(struct msim__list *n, struct msim__list *h)
{
	msim__list_insert(n, h, h->next);
}

/* list_add_tail(): at the tail (the old end, where reclaim takes from). */
static inline void msim__list_add_tail(struct msim__list *n, struct msim__list *h)
{
	msim__list_insert(n, h->prev, h);
}

/* list_del_init(): unlink and leave the node pointing at itself. */
static inline void msim__list_del_init(struct msim__list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	msim__list_init(n);
}

static inline void msim__list_move(struct msim__list *n, struct msim__list *h)
{
	msim__list_del_init(n);
	msim__list_add(n, h);
}

static inline void msim__list_move_tail(struct msim__list *n, struct msim__list *h)
{
	msim__list_del_init(n);
	msim__list_add_tail(n, h);
}

/* Join the nodes of list between prev and next; list itself is left as it was. */
static inline void msim__list_join(const struct msim__list *list, struct msim__list *prev,
				   struct msim__list *next)
{
	struct msim__list *first = list->next, *last = list->prev;

	first->prev = prev;
	prev->next = first;
	last->next = next;
	next->prev = last;
}

/* list_splice_init(): move every node of list to the head of h; list becomes empty. */
static inline void msim__list_splice_init(struct msim__list *list, struct msim__list *h)
{
	if (msim__list_empty(list))
		return;
	msim__list_join(list, h, h->next);
	msim__list_init(list);
}

/* list_splice_tail_init(): the same, at the tail of h. */
static inline void msim__list_splice_tail_init(struct msim__list *list, struct msim__list *h)
{
	if (msim__list_empty(list))
		return;
	msim__list_join(list, h->prev, h);
	msim__list_init(list);
}

/* Number of nodes (walks the list: introspection only). */
static inline size_t msim__list_count(const struct msim__list *h)
{
	size_t n = 0;

	for (const struct msim__list *p = h->next; p != h; p = p->next)
		n++;
	return n;
}

#endif /* MSIM_LIB_LIST_H */
