/* tst_reduced_step.h -- humanoid.xml states recorded on main at 1031f1b (dense
 * per-tree dpotrf) for test_world_reduced.c's test_one_step_as_dense; written by that
 * test with LCPLAB_RECORD_STEP=1 in the environment. */
static const double step_before[55] = {
  0x1.ffd9ee118c793p-1, 0x1.2dc8703bcb9c4p-56, 0x1.8adb7587c725ep-6, 0x1.a21ee1fa68103p-59,
  -0x1.d0dfe366227f6p-5, -0x1.893adc213b38ep-57, 0x1.00de2be6c31dp-8, -0x1.27a30f977a5b8p-7,
  -0x1.8362e1040342fp-55, 0x1.00de2be6c31b7p-8, -0x1.27a30f977a5c1p-7, -0x1.a4e5211da6692p-53,
  -0x1.2e4642b51041ep-3, -0x1.b2d9da2c74f48p-5, 0x1.2e4642b51041dp-3, -0x1.b2d9da2c74f42p-5,
  0x1.bc24a7a4dd124p-56, -0x1.22565150b4f41p-55, -0x1.058bd571bdab9p-57, -0x1.204f2971790b9p-8,
  0x1.0b21f05ab50dap-55, -0x1.21095e8c36f2p-54, -0x1.204f29717903fp-8, 0x1.c12f1db877f18p-3,
  -0x1.c12f1db877f16p-3, 0x1.28f2045010196p-8, -0x1.60100d9d3fcacp-59, -0x1.bc5cc61e22283p-3,
  0x1.2b16p-50, 0x1.fa8546f10a1f8p-1, -0x1.743p-52, -0x1.a7298f09781e1p-1,
  -0x1.478p-51, -0x1.22c647ed9be06p-2, -0x1.90343274a1294p-3, -0x1.ae28p-52,
  -0x1.22c647ed9be06p-2, -0x1.90343274a127fp-3, -0x1.fbbp-47, -0x1.e30199c98f4e2p+1,
  -0x1.2a3d11e11fc06p+1, 0x1.e30199c98f4e7p+1, -0x1.2a3d11e11fc04p+1, 0x1.ec4p-52,
  -0x1.b57p-51, 0x1.dc4p-54, -0x1.302d046f62eecp-4, -0x1.73ep-52,
  -0x1.bfdp-48, -0x1.302d046f62e4cp-4, 0x1.594aeeaeb1979p+2, -0x1.594aeeaeb1979p+2,
  0x1.598117329d50bp-3, -0x1.21fp-53, 0x1.30e9b3a92cb5p-5
};
static const double step_after[55] = {
  0x1.ffd1b912238e3p-1, 0x1.61f76a7190d38p-56, 0x1.b35601f24016fp-6, 0x1.6bd28a2730b1bp-59,
  -0x1.f1abfd4fa6e84p-5, -0x1.1f7eb5beb2175p-56, 0x1.44c4ececfed19p-9, -0x1.418d52f22c048p-7,
  -0x1.c5d51e30fc487p-56, 0x1.44c4ececfece3p-9, -0x1.418d52f22c052p-7, -0x1.2d4aaf4725201p-52,
  -0x1.5492596d06253p-3, -0x1.0fa52b7ba36c8p-4, 0x1.5492596d06252p-3, -0x1.0fa52b7ba36c4p-4,
  0x1.03a1affb644bbp-55, -0x1.4441d66f6d46p-55, -0x1.4e0e8e8fe9134p-56, -0x1.333632a8bb9adp-8,
  0x1.d12528637e962p-56, -0x1.b42816de22772p-54, -0x1.333632a8bb92dp-8, 0x1.f7da43c57ead4p-3,
  -0x1.f7da43c57ead2p-3, 0x1.632fb7a25b94ep-8, -0x1.b157bbb1baacp-59, -0x1.bc1721184576cp-3,
  0x1.48p-50, 0x1.fa257b514db64p-1, -0x1.398p-53, -0x1.99f743e6f71eep-1,
  -0x1.1cp-50, -0x1.274296fed3933p-2, -0x1.43f049edacc02p-3, 0x1.f578p-49,
  -0x1.274296fed3939p-2, -0x1.43f049edacc0fp-3, -0x1.1be36p-46, -0x1.deb71bfb81997p+1,
  -0x1.52df85f9cfe9fp+1, 0x1.deb71bfb8199dp+1, -0x1.52df85f9cfe9ep+1, 0x1.d58p-51,
  -0x1.a8p-51, -0x1.3da18p-49, -0x1.d88fe6657ffd6p-5, -0x1.bp-51,
  -0x1.cbcp-48, -0x1.d88fe6657ff4p-5, 0x1.55adadd16a157p+2, -0x1.55adadd16a158p+2,
  0x1.6c01a0c257c4p-3, -0x1.fcp-54, 0x1.b34764a354f56p-6
};
