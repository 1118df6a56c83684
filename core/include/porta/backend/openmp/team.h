/** @file backend/openmp/team.h
 *  OpenMP team launchers: the thread pool is cut into num_threads / team_size
 *  concurrent teams; team g runs one contiguous block of the launch's league
 *  ranks (porta_partition_ of porta_launch.league_begin to league_end), so consecutive ranks stream
 * through memory on one core (round-robin ranks cost 20-25 % on a bandwidth-bound SpMV). Members
 *  synchronise through porta_team_barrier_host_; a barrier ends each league
 *  rank so scratch can be reused. */
#ifndef PORTA_BACKEND_OPENMP_TEAM_H
#define PORTA_BACKEND_OPENMP_TEAM_H

#if defined(_OPENMP)

/** Carve the workspace: nteams shared structs, then one block per team. */
#define PORTA_OPENMP_TEAM_SETUP_(EXTRA_BYTES)                                                      \
  const int ts_ = launch_->team.team_size;                                                         \
  const int nteams_ = launch_->num_threads / ts_ > 0 ? launch_->num_threads / ts_ : 1;             \
  const size_t bb_ = porta_align64_(porta_host_team_block_bytes_(&launch_->team));                 \
  const size_t shb_ = porta_align64_((size_t)nteams_ * sizeof(porta_team_shared));                 \
  char *ws_ = (char *)porta_host_workspace_(shb_ + (size_t)nteams_ * bb_ + (EXTRA_BYTES));         \
  if (!ws_) return PORTA_ERROR_OUT_OF_MEMORY;                                                      \
  porta_team_shared *sh_ = (porta_team_shared *)ws_;                                               \
  memset(sh_, 0, (size_t)nteams_ * sizeof(porta_team_shared));                                     \
  char *const extra_ = ws_ + shb_ + (size_t)nteams_ * bb_; /* const: nvcc's "set but unused" */    \
  (void)extra_;

#define PORTA_OPENMP_TEAM_FOR_(NAME, ARGS_T)                                                       \
  static int NAME##_porta_openmp_(const porta_launch *launch_, const void *args_, void *result_) { \
    (void)result_;                                                                                 \
    const ARGS_T *ap_ = (const ARGS_T *)args_;                                                     \
    PORTA_OPENMP_TEAM_SETUP_(0)                                                                    \
    int ok_ = 1;                                                                                   \
    PORTA_OMP(parallel num_threads(nteams_ *ts_)) {                                                \
      const ARGS_T a_ = *ap_;                                                                      \
      const int tid_ = omp_get_thread_num(), g_ = tid_ / ts_, r_ = tid_ % ts_;                     \
      const int ng_ = omp_get_num_threads() / ts_; /* teams the threads granted can form */        \
      porta_team t_;                                                                               \
      int64_t lb_, le_;                                                                            \
      if (tid_ == 0 && ng_ == 0) ok_ = 0;                                                          \
      porta_partition_(launch_->league_begin, launch_->league_end, g_, ng_ > 0 ? ng_ : 1, &lb_,    \
                       &le_);                                                                      \
      if (g_ < ng_)                                                                                \
        for (int64_t lr_ = lb_; lr_ < le_; ++lr_) {                                                \
          porta_host_team_setup_(&t_, &launch_->team, lr_, r_, &sh_[g_],                           \
                                 ws_ + shb_ + (size_t)g_ * bb_);                                   \
          NAME##_porta_body_(&a_, &t_);                                                            \
          porta_team_barrier(&t_);                                                                 \
        }                                                                                          \
    }                                                                                              \
    return ok_ ? PORTA_SUCCESS : PORTA_ERROR_BACKEND;                                              \
  }

/** Non-deterministic: one slot per thread, joined in thread order. Deterministic: one
 *  partial per (league rank, member), combined by the fixed tree. Both launchers form as
 *  many teams as the threads OpenMP grants allow (fewer under OMP_THREAD_LIMIT or in a nested
 *  region) and fail with PORTA_ERROR_BACKEND only when not even one team can be formed. */
#define PORTA_OPENMP_TEAM_REDUCE_(NAME, ARGS_T, R)                                                 \
  static int NAME##_porta_openmp_(const porta_launch *launch_, const void *args_, void *result_) { \
    const ARGS_T *ap_ = (const ARGS_T *)args_;                                                     \
    const int64_t l0_ = launch_->league_begin, nl_ = launch_->league_end - l0_;                    \
    const size_t st_ = PORTA_SLOT_STRIDE_(R##_value);                                              \
    PORTA_OPENMP_TEAM_SETUP_(                                                                      \
        launch_->deterministic ? (size_t)nl_ *(size_t)launch_->team.team_size * sizeof(R##_value)  \
                               : (size_t)launch_->num_threads *st_)                                \
    R##_value *part_ = (R##_value *)extra_;                                                        \
    R##_value acc_;                                                                                \
    PORTA_HOST_ACC_START_(R, acc_, launch_)                                                        \
    int ok_ = 1, used_ = nteams_ * ts_;                                                            \
    PORTA_OMP(parallel num_threads(nteams_ *ts_)) {                                                \
      const ARGS_T a_ = *ap_;                                                                      \
      const int tid_ = omp_get_thread_num(), g_ = tid_ / ts_, r_ = tid_ % ts_;                     \
      const int ng_ = omp_get_num_threads() / ts_; /* teams the threads granted can form */        \
      porta_team t_;                                                                               \
      R##_value mine_;                                                                             \
      R##_init(&mine_);                                                                            \
      if (tid_ == 0) {                                                                             \
        used_ = omp_get_num_threads();                                                             \
        ok_ = ng_ > 0;                                                                             \
      }                                                                                            \
      if (g_ < ng_) {                                                                              \
        int64_t lb_, le_;                                                                          \
        porta_partition_(l0_, l0_ + nl_, g_, ng_, &lb_, &le_);                                     \
        for (int64_t lr_ = lb_; lr_ < le_; ++lr_) {                                                \
          porta_host_team_setup_(&t_, &launch_->team, lr_, r_, &sh_[g_],                           \
                                 ws_ + shb_ + (size_t)g_ * bb_);                                   \
          if (launch_->deterministic) {                                                            \
            R##_value *pp_ = &part_[(lr_ - l0_) * ts_ + r_];                                       \
            R##_init(pp_);                                                                         \
            NAME##_porta_body_(&a_, &t_, pp_);                                                     \
          } else {                                                                                 \
            NAME##_porta_body_(&a_, &t_, &mine_);                                                  \
          }                                                                                        \
          porta_team_barrier(&t_);                                                                 \
        }                                                                                          \
      }                                                                                            \
      if (!launch_->deterministic) memcpy(extra_ + (size_t)tid_ * st_, &mine_, sizeof(R##_value)); \
    }                                                                                              \
    if (!ok_) return PORTA_ERROR_BACKEND;                                                          \
    if (launch_->deterministic) {                                                                  \
      NAME##_porta_det_tree_(part_, nl_ *ts_);                                                     \
      if (nl_ > 0) PORTA_HOST_ACC_SET_(R, acc_, part_[0], launch_)                                 \
    } else {                                                                                       \
      PORTA_OPENMP_JOIN_SLOTS_(R, acc_, extra_, st_, used_)                                        \
    }                                                                                              \
    memcpy(result_, &acc_, sizeof(R##_value));                                                     \
    return 0;                                                                                      \
  }

#endif

#endif
