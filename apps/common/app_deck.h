/** @file app_deck.h
 *  Input-deck reading shared by the apps: load a text file on rank 0 and broadcast it (every
 *  rank then parses the same text and reaches the same verdict), split it into lines of
 *  tokens, and convert values with errors that name the file, the line and the value.
 *  Errors: Porta codes (app_common.h) recording "file:line: reason" (porta_last_error_message:
 *  what the apps print for a bad deck).
 */
#ifndef APP_DECK_H
#define APP_DECK_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "porta/macros.h"

PORTA_EXTERN_C_BEGIN

/** The largest deck app_deck_load reads (16 MiB); a larger file, or a file that is not a regular
 *  file and reads more (a device, a pipe that never ends), is refused. */
#define APP_DECK_MAX_BYTES (16ll * 1024 * 1024)

/** One non-empty line of the deck after comments and separators were removed. */
typedef struct app_deck_line {
  int line; /**< 1-based line number in the file */
  int ntok;
  char **tok; /**< tokens (lower-cased when asked) */
} app_deck_line;

typedef struct app_deck {
  char path[1024]; /**< file name, for messages */
  char *text;      /**< the whole file as read (NUL-terminated) */
  size_t size;
  int nlines;
  app_deck_line *lines;
} app_deck;

/** Rank 0 reads `path`, every rank of `comm` receives the text. Returns PORTA_SUCCESS, or
 *  PORTA_ERROR_IO recorded on every rank (file missing, unreadable: the OS's reason; a
 *  directory; more than APP_DECK_MAX_BYTES; a failed MPI call: MPI's reason). */
int app_deck_load(app_deck *d, const char *path, MPI_Comm comm);
/** Use `text` as the deck (tests, default decks). */
int app_deck_load_text(app_deck *d, const char *name, const char *text);
/** Split into lines of tokens: characters in `comment` start a comment to the end of the line,
 *  characters in `separators` count as white space, `lower` lower-cases everything. A UTF-8
 *  byte-order mark at the start is skipped; a NUL byte is refused (PORTA_ERROR_INVALID_ARGUMENT,
 *  naming its line). */
int app_deck_tokenize(app_deck *d, const char *comment, const char *separators, int lower);
void app_deck_free(app_deck *d);

/** Record "file:line: message" as a Porta error of the deck;
 *  returns PORTA_ERROR_INVALID_ARGUMENT (so `return app_deck_error(...)`). Control bytes of the
 *  message (and of the file name) are written escaped, as \xNN. */
int app_deck_error(app_deck *d, int line, const char *fmt, ...) PORTA_PRINTF_FORMAT(3, 4);

/** Convert `text` (the value of `key` on line `line`): whole string must be a number (of any
 *  length). On failure record the Porta error "file:line: bad integer 'x' for 'key'" (a value
 *  out of the type's range says so) and return PORTA_ERROR_INVALID_ARGUMENT. app_deck_double
 * accepts Fortran exponents (1.0d-3) and subnormal values; it refuses hexadecimal numbers, what is
 * not finite and what overflows or underflows to zero. */
int app_deck_int(app_deck *d, int line, const char *key, const char *text, int *out);
int app_deck_i64(app_deck *d, int line, const char *key, const char *text, int64_t *out);
int app_deck_double(app_deck *d, int line, const char *key, const char *text, double *out);

/** Does `text` (after blanks and a sign) start a hexadecimal number ("0x10", "0x1p4")? strtod
 *  reads those, but decks, input files and options take decimal numbers only (a deck's "d"
 *  exponent would even change a hexadecimal digit), so the readers refuse them. */
int app_number_is_hex(const char *text);

PORTA_EXTERN_C_END

#endif /* APP_DECK_H */
