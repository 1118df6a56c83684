/** @file porta.h
 *  Porta: a portability core in C11 with the Kokkos programming model:
 *  execution and memory spaces, views, range / multi-dimensional / team
 *  policies, parallel for / reduce / scan, team scratch and atomics, with
 *  Serial, OpenMP (and CUDA) back ends chosen at run time. */
#ifndef PORTA_H
#define PORTA_H

#include "porta/macros.h"
#include "porta/error.h"
#include "porta/runtime.h"
#include "porta/view.h"
#include "porta/policy.h"
#include "porta/reducer.h"
#include "porta/xsum.h"
#include "porta/ddsum.h"
#include "porta/atomic.h"
#include "porta/profiling.h"
#include "porta/team.h"
#include "porta/kernel.h"
#include "porta/reduce_end.h"
#include "porta/ipc.h"
#include "porta/loop.h"

#endif /* PORTA_H */
