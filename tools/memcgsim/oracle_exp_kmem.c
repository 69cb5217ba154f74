/* SPDX-License-Identifier: MIT */
#include "oracle.h"

int oracle_exp_kmem(const struct oracle_opts *o, struct oracle_rows *rows, char *err,
		    size_t errlen)
{
	(void)o; (void)rows; (void)err; (void)errlen;
	return 0;
}
