/** @file serial/serial_backend.c
 *  The Serial back end's execution interface: always available, one host thread, instance 0
 *  only; every launch completes before it returns, so a fence has nothing to wait for. The
 *  launchers are generated in the user's files (porta/backend/serial/). */
#include "../backend_private.h"

static int serial_available(void) { return 1; }

const porta_backend_ops porta_serial_backend_ops_ = {
    .id = PORTA_BACKEND_SERIAL,
    .name = "serial",
    .memory_space = PORTA_HOST_SPACE,
    .available = serial_available,
};
