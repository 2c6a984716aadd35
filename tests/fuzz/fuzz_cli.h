/* fuzz_cli.h -- put first (-include) into the command line's sources when
 * they are built for a harness (tests/fuzz/libfuzzcli.la): they are
 * compiled with -Dmain=lcplab_main, since libFuzzer has the process's main,
 * and this is that function's prototype. */
int main(int argc, char **argv);
