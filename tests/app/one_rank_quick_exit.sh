# Sourced by the app tests' scripts before they launch a run that stops with an error on one
# rank (NP=1): Open MPI's launcher waits odls_base_sigkill_timeout (1 s) twice before it reports
# a failed job's exit status, 2 s of a 2.4 s test. With one rank there is no other process
# whose clean-up on SIGTERM (the apps' handler removing partial results) the wait protects.
# With several ranks the wait stays.
if [ "${np:-1}" = 1 ]; then
  export OMPI_MCA_odls_base_sigkill_timeout="${OMPI_MCA_odls_base_sigkill_timeout:-0}"
fi
