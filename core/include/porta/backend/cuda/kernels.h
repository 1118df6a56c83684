/** @file backend/cuda/kernels.h
 *  CUDA generators. When nvcc compiles a kernel file as CUDA these produce the
 *  __global__ kernels and their launchers (the CUDA back-end issue); in every
 *  other compilation the descriptor's CUDA slot is empty and a launch on CUDA
 *  reports that the kernel was not compiled for it. */
#ifndef PORTA_BACKEND_CUDA_KERNELS_H
#define PORTA_BACKEND_CUDA_KERNELS_H

#define PORTA_CUDA_REF_(NAME) NULL
#define PORTA_CUDA_FOR_(NAME, ARGS_T)
#define PORTA_CUDA_REDUCE_(NAME, ARGS_T, R)
#define PORTA_CUDA_SCAN_(NAME, ARGS_T, R)
#define PORTA_CUDA_MDFOR2_(NAME, ARGS_T)
#define PORTA_CUDA_MDFOR3_(NAME, ARGS_T)
#define PORTA_CUDA_MDFOR4_(NAME, ARGS_T)
#define PORTA_CUDA_MDFOR5_(NAME, ARGS_T)
#define PORTA_CUDA_MDFOR6_(NAME, ARGS_T)
#define PORTA_CUDA_MDREDUCE2_(NAME, ARGS_T, R)
#define PORTA_CUDA_MDREDUCE3_(NAME, ARGS_T, R)
#define PORTA_CUDA_TEAM_FOR_(NAME, ARGS_T)
#define PORTA_CUDA_TEAM_REDUCE_(NAME, ARGS_T, R)

#endif
