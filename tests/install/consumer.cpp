// consumer.cpp -- every public header of lcplab included from C++, one call
// into each library (tests/test_headers.sh compiles it; tests/test_install.sh
// links it against the installed libraries and runs it: the extern "C"
// declarations must name the C symbols).
#include <slv.h>
#include <io.h>
#include <dyn.h>
#include <dyn_constraint.h>
#include <dyn_joint.h>
#include <dyn_math.h>
#include <dyn_model.h>
#include <dyn_redmax.h>
#include <dyn_run.h>
#include <dyn_world.h>
#include <mdl.h>

#include <cstdio>

int main() {
  slv_residuals r = slv_residuals();
  r.compl_ = 0.0; // C's "compl": an operator name in C++
  int solvers = slv_solver_count();
  const char *fmt = io_format_str(IO_FMT_NPZ);
  int scenes = dyn_scene_count();
  mdl_write_options wo = mdl_write_options_default();
  std::printf("%d solvers, %d scenes, format %s, MuJoCo %s\n", solvers, scenes, fmt,
              mdl_mujoco_version());
  return solvers > 0 && scenes > 0 && r.compl_ == 0.0 && wo.dt > 0.0 ? 0 : 1;
}
