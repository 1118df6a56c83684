/** @file minimd_input.h
 *  miniMD's own input files (the EAM potential, a LAMMPS data file) read line by line, with the
 *  deck's protections (minimd_input.c). */
#ifndef MINIMD_INPUT_H
#define MINIMD_INPUT_H

#include <stddef.h>
#include <stdio.h>

#include "porta/porta.h"

PORTA_EXTERN_C_BEGIN

/** The longest line read (a whole table on one line is fine; a file that is one endless line is
 *  not). */
#define MINIMD_INPUT_MAX_LINE (64ll * 1024 * 1024)

/** An input file being read: `line` is the number of the line last returned. */
typedef struct minimd_input {
  FILE *f;
  const char *path;
  char *buf;
  size_t cap;
  int line;
} minimd_input;

/** Open `path`, a `what` ("data file", "EAM potential file"), for minimd_input_line. Only a
 *  regular file is read: a FIFO or a device (/dev/zero) would block the run or never end, and is
 *  refused naming what it is; the file is opened without waiting (a FIFO without a writer cannot
 *  hang the open). Returns a Porta code (the reason recorded as Porta's last error). */
int minimd_input_open(minimd_input *in, const char *path, const char *what);
/** The next line, of any length up to MINIMD_INPUT_MAX_LINE, its end of line removed; NULL at the
 *  end of the file, or with *rc set (the reason recorded as Porta's last error) when the line is
 *  too long or cannot be read. */
char *minimd_input_line(minimd_input *in, int *rc);
void minimd_input_close(minimd_input *in);

/** `text` is wholly a decimal integer (an optional sign, digits, no fraction or exponent) in
 *  [lo, hi]: 1, *out set; else 0. */
int minimd_input_int(const char *text, long long lo, long long hi, long long *out);
/** `text` is wholly a finite decimal real number (not hexadecimal): 1, *out set; else 0. */
int minimd_input_real(const char *text, double *out);

PORTA_EXTERN_C_END

#endif /* MINIMD_INPUT_H */
