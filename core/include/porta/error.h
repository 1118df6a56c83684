/** @file error.h
 *  Error codes, the checking macro and the caller-chosen error handler.
 *
 *  Every fallible Porta function returns an `int` code (PORTA_SUCCESS is 0).
 *  Before returning a failure it formats a message naming the operation, the
 *  object's label and the reason, and hands it to the current handler.
 */
#ifndef PORTA_ERROR_H
#define PORTA_ERROR_H

#include "porta/macros.h"

PORTA_EXTERN_C_BEGIN

/** Error codes returned by every fallible Porta call. */
typedef enum porta_error_code {
  PORTA_SUCCESS = 0,
  PORTA_ERROR_INVALID_ARGUMENT = 1, /**< bad argument or option value */
  PORTA_ERROR_OUT_OF_MEMORY = 2,    /**< an allocation failed */
  PORTA_ERROR_INCOMPATIBLE = 3,     /**< views differ in layout, rank, extents or type */
  PORTA_ERROR_UNSUPPORTED = 4,      /**< backend or feature not compiled in or not available */
  PORTA_ERROR_NOT_INITIALIZED = 5,  /**< porta_initialize has not been called */
  PORTA_ERROR_BOUNDS = 6,           /**< index outside a view's extents (debug builds) */
  PORTA_ERROR_BACKEND = 7,          /**< a backend (OpenMP, CUDA) reported a failure */
  PORTA_ERROR_IO = 8                /**< a file could not be read or written */
} porta_error_code;

/** What happens when a Porta call fails. */
typedef enum porta_error_mode {
  PORTA_ERROR_MODE_RETURN = 0,  /**< print nothing; return the code (the default) */
  PORTA_ERROR_MODE_PRINT = 1,   /**< print the message to stderr, then return the code */
  PORTA_ERROR_MODE_ABORT = 2,   /**< print the message and abort() */
  PORTA_ERROR_MODE_CALLBACK = 3 /**< call the user's handler */
} porta_error_mode;

/** A user error handler; its return value is returned by the failing call. */
typedef int (*porta_error_handler)(int code, const char *message, void *user_data);

/** Choose what failures do. `handler` is only used with PORTA_ERROR_MODE_CALLBACK. */
PORTA_API void porta_set_error_mode(porta_error_mode mode, porta_error_handler handler,
                                    void *user_data);

/** A scoped error mode: what porta_error_scope_begin replaced, for porta_error_scope_end. */
typedef struct porta_error_scope {
  int active; /**< a scope was open on this thread before */
  porta_error_mode mode;
  porta_error_handler handler;
  void *user_data;
} porta_error_scope;

/** Until the matching porta_error_scope_end, failures of this thread's Porta calls follow
 *  `mode` (and `handler`), whatever the process-wide mode: a library that calls Porta inside an
 *  application that set PORTA_ERROR_MODE_ABORT gets its own codes back and leaves the
 *  application's mode as it was. Scopes nest; other threads are not affected.
 *  @code
 *  porta_error_scope s = porta_error_scope_begin(PORTA_ERROR_MODE_RETURN, NULL, NULL);
 *  int rc = porta_view_f64_create1(&v, "mine", n);
 *  porta_error_scope_end(s);
 *  @endcode */
PORTA_API porta_error_scope porta_error_scope_begin(porta_error_mode mode,
                                                    porta_error_handler handler, void *user_data);
/** Close the scope `saved` came from: this thread's mode is again the one before it. */
PORTA_API void porta_error_scope_end(porta_error_scope saved);

/** The message of the most recent failure on this thread ("" if none). */
PORTA_API const char *porta_last_error_message(void);

/** The most recent failure on this thread in its parts, as porta_error received them: `code`
 *  (PORTA_SUCCESS: none, and the strings are ""), the operation, the label ("" for none; one of
 *  more than 240 bytes shortened as in the message) and the reason. For a caller that words
 *  the failure itself (an app's message puts a file's name first). The strings stay valid
 *  until this thread's next failure or porta_error_clear. */
typedef struct porta_error_parts {
  int code;
  const char *op;
  const char *label;
  const char *reason;
} porta_error_parts;
PORTA_API porta_error_parts porta_last_error_parts(void);

/** Short name of an error code ("PORTA_ERROR_INCOMPATIBLE"). */
PORTA_API const char *porta_error_name(int code);

/** Record a failure of operation `op` on the object labelled `label` and
 *  dispatch it to the handler; returns what the handler returns (normally `code`). */
PORTA_API int porta_error(int code, const char *op, const char *label, const char *fmt, ...)
    PORTA_PRINTF_FORMAT(4, 5);

/** Clear the last message (tests use it). */
PORTA_API void porta_error_clear(void);

PORTA_EXTERN_C_END

/** Evaluate a Porta call; on failure return its code from the enclosing function. */
#define PORTA_CHECK(call)                                                                          \
  do {                                                                                             \
    int porta_check_rc_ = (call);                                                                  \
    if (PORTA_UNLIKELY(porta_check_rc_ != PORTA_SUCCESS)) return porta_check_rc_;                  \
  } while (0)

#endif /* PORTA_ERROR_H */
