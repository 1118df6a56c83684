/** @file tea_deck.h
 *  Reading the reference TeaLeaf input deck (tea.in) into tea_settings. */
#ifndef TEA_DECK_H
#define TEA_DECK_H

#include "app_cli.h"
#include "app_deck.h"
#include "tea_settings.h"

PORTA_EXTERN_C_BEGIN

/** The deck the reference writes and runs when tea.in is missing (10x10, Jacobi). */
extern const char *const tea_default_deck;

/** Parse the `*tea` ... `*endtea` block of a loaded deck into `s` (defaults first). Syntax as
 *  the reference: case-insensitive, '=' and ',' separate, '!' and ';' start comments. Returns
 *  0, or 1 with a Porta error recorded ("file:line: message") for an unknown keyword, a bad or
 *  missing value, a missing *tea / *endtea, an empty file, non-positive cells, a bad state,
 * jac_block with halo_depth > 1, or values out of range: extents beyond 32-bit indices, fields
 * larger than the physical memory, non-finite cell sizes or operator coefficients, more than 10^7
 * time steps, tl_ch_cg_presteps < 1 with Chebyshev/PPCG (docs/tealeaf.md, "Input checks"). */
int tea_deck_parse(app_deck *d, tea_settings *s);

/** Collective: the run's deck (cli->input, read on rank 0) loaded and parsed into *s, with the
 *  command line's reproducible mode. Like the reference, a missing tea.in runs the built-in
 *  default deck; a deck that was named, or that is there and cannot be read (a directory, too
 *  large, unreadable), stops the job with its message, as does a bad deck. */
void tea_deck_read(app_deck *deck, const app_cli *cli, tea_settings *s);

PORTA_EXTERN_C_END

#endif /* TEA_DECK_H */
