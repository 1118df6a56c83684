/** @file backend/openmp/kernels.h
 *  The OpenMP back end's kernel generators, as kernel.h calls them (docs/backends.md). A file
 *  compiled without OpenMP (the device pass of nvcc, or a build without the back end) gets
 *  none: the descriptor's OpenMP slot stays empty. */
#ifndef PORTA_BACKEND_OPENMP_KERNELS_H
#define PORTA_BACKEND_OPENMP_KERNELS_H

#include "porta/backend/openmp/mdrange.h"
#include "porta/backend/openmp/range.h"
#include "porta/backend/openmp/team.h"

#if defined(_OPENMP)
#define PORTA_OPENMP_REF_(NAME) NAME##_porta_openmp_
#else
#define PORTA_OPENMP_REF_(NAME) NULL
#define PORTA_OPENMP_FOR_(NAME, ARGS_T)
#define PORTA_OPENMP_REDUCE_(NAME, ARGS_T, R)
#define PORTA_OPENMP_SCAN_(NAME, ARGS_T, R)
#define PORTA_OPENMP_MDFOR_(NAME, ARGS_T, RANK)
#define PORTA_OPENMP_MDREDUCE_(NAME, ARGS_T, RANK, R)
#define PORTA_OPENMP_TEAM_FOR_(NAME, ARGS_T)
#define PORTA_OPENMP_TEAM_REDUCE_(NAME, ARGS_T, R)
#endif

#endif
