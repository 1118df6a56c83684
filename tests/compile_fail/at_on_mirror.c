// expect: has no member named.*PORTA_AT_is_for_views_use_PORTA_S_on_mirrors
/* PORTA_AT* reads the pass's default layout (Right on the host). A host mirror keeps its
 * source's layout (Left for a GPU view), so PORTA_AT2 on it would read the wrong element in a
 * release build: it does not compile, while PORTA_S2 (the view's own strides) does. */
#include "porta/porta.h"

double corner(const porta_view_f64 *device_view) {
  porta_mirror_f64 h;
  if (porta_view_f64_create_mirror_view(&h, device_view) != PORTA_SUCCESS) return 0.0;
  if (porta_deep_copy(h, *device_view) != PORTA_SUCCESS) return 0.0;
#ifdef PORTA_CF_CONTROL
  const double x = PORTA_S2(h, 1, 2) + PORTA_L2(h, 0, 0) + PORTA_R2(h, 0, 0);
#else
  const double x = PORTA_AT2(h, 1, 2);
#endif
  porta_mirror_f64_release(&h);
  return x;
}

int main(void) { return 0; }
