/** @file app_h5_private.h
 *  What the HDF5 writer's files share (app_h5.c: errors, the file, groups and attributes;
 *  app_h5_data.c: the datasets). Internal to apps/common. */
#ifndef APP_H5_PRIVATE_H
#define APP_H5_PRIVATE_H

#include "app_h5.h"

/** HDF5's automatic printing, switched off inside every call of the writer (the message carries
 *  what HDF5 said instead) and restored before it returns. */
typedef struct app_h5_quiet_ {
  H5E_auto2_t func;
  void *data;
} app_h5_quiet_;

app_h5_quiet_ app_h5_quiet_begin_(void);
void app_h5_quiet_end_(app_h5_quiet_ q);

/** Record an HDF5 failure of `call` in function `op` on object `label` with what HDF5's error
 *  stack says (read it before any other HDF5 call clears it) and the cause in words where one
 *  is known (also kept in h->cause: a full file system); returns the code. */
int app_h5_fail_(const char *op, const char *label, app_h5 *h, const char *call);
/** h->cause where another rank's write failed: what this rank's file system says of the
 *  temporary's directory (full or not). */
void app_h5_fail_note_(app_h5 *h);

#endif /* APP_H5_PRIVATE_H */
