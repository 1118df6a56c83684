/** @file app_common.h
 *  The application layer shared by the Porta mini-apps (TeaLeaf, miniFE, miniMD). */
#ifndef APP_COMMON_H
#define APP_COMMON_H

#include "app_cli.h"
#include "app_deck.h"
#include "app_decomp.h"
#include "app_field.h"
#include "app_h5.h"
#include "app_halo.h"
#include "app_mpi.h"
#include "app_report.h"

#endif /* APP_COMMON_H */
