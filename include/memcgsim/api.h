/* SPDX-License-Identifier: MIT */
/*
 * api.h - MSIM_API marks what libmemcgsim exports.
 *
 * The library is built with hidden default visibility (-fvisibility=hidden): only
 * declarations marked MSIM_API in the public headers enter the shared library's
 * dynamic symbol table. Internal msim__ functions stay callable across the
 * library's own files and from the static library, but no program that links
 * libmemcgsim.so can bind to them (tests/unit/test_exports checks the list).
 */
#ifndef MEMCGSIM_API_H
#define MEMCGSIM_API_H

#if defined(__GNUC__) || defined(__clang__)
#define MSIM_API __attribute__((visibility("default")))
#else
#define MSIM_API
#endif

#endif /* MEMCGSIM_API_H */
