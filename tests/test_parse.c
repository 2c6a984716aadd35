/* test_parse.c -- the toolkit's one strict number parser (libsolvers/parse.c,
 * slv.h "numbers from text"), on hand cases whose answer is known:
 *   - doubles: the whole text, no leading blank, NaN never, infinities only
 *     when asked, an overflow out of range (or the infinity it rounds to when
 *     infinities are asked), an underflow the value it rounds to, C's
 *     hexadecimal floats, the exact bits of a %.17g round trip;
 *   - integers: base 10 with a sign, int and long overflow, "-1" as an
 *     unsigned long, hexadecimal and decimals refused;
 *   - tokens inside a longer text (the readers' case): the number must end
 *     at the token's end, also when the next byte would continue it;
 *   - a refusal leaves *out as it was;
 *   - every error has a text.
 */
#include "slv.h"
#include "tst_util.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void refuse_double(const char *s, unsigned flags, slv_parse_error want) {
  double v = 42.0;
  slv_parse_error e = slv_parse_double(s, flags, &v);
  CU_ASSERT_EQUAL(e, want);
  CU_ASSERT_EQUAL(v, 42.0); /* untouched */
  if (e != want) printf("\n  '%s': error %d, expected %d", s ? s : "(null)", (int)e, (int)want);
}

static void accept_double(const char *s, unsigned flags, double want) {
  double v = 42.0;
  CU_ASSERT_EQUAL(slv_parse_double(s, flags, &v), SLV_PARSE_OK);
  CU_ASSERT(v == want || (isnan(v) && isnan(want)));
  CU_ASSERT_EQUAL(signbit(v), signbit(want));
  if (v != want) printf("\n  '%s' gave %.17g, expected %.17g", s, v, want);
}

static void test_doubles(void) {
  accept_double("1.5", 0, 1.5);
  accept_double("-2e-3", 0, -2e-3);
  accept_double("+7", 0, 7.0);
  accept_double(".5", 0, 0.5);
  accept_double("1.", 0, 1.0);
  accept_double("-0", 0, -0.0);
  accept_double("0x10", 0, 16.0);    /* C's hexadecimal float, as %a writes */
  accept_double("0x1p-3", 0, 0.125); /* 1 * 2^-3 */
  accept_double("1e-400", 0, 0.0);   /* underflow: the value it rounds to */
  accept_double("4.9406564584124654e-324", 0, 4.9406564584124654e-324); /* the least subnormal */
  accept_double("1.7976931348623157e308", 0, DBL_MAX);
  refuse_double("1e-8x", 0, SLV_PARSE_TRAILING);
  refuse_double("1 2", 0, SLV_PARSE_TRAILING);
  refuse_double("1e", 0, SLV_PARSE_TRAILING);
  refuse_double("1.5 ", 0, SLV_PARSE_TRAILING);
  refuse_double("", 0, SLV_PARSE_EMPTY);
  refuse_double(NULL, 0, SLV_PARSE_EMPTY);
  refuse_double(" 1", 0, SLV_PARSE_BLANK);
  refuse_double("\n1", 0, SLV_PARSE_BLANK);
  refuse_double("\t1", 0, SLV_PARSE_BLANK);
  refuse_double("abc", 0, SLV_PARSE_SYNTAX);
  refuse_double("-", 0, SLV_PARSE_SYNTAX);
  refuse_double(".", 0, SLV_PARSE_SYNTAX);
  refuse_double("nan", 0, SLV_PARSE_NAN);
  refuse_double("-nan", SLV_PARSE_INF, SLV_PARSE_NAN);
  refuse_double("NaN(12)", SLV_PARSE_INF, SLV_PARSE_NAN);
  refuse_double("inf", 0, SLV_PARSE_INFINITE);
  refuse_double("-Infinity", 0, SLV_PARSE_INFINITE);
  refuse_double("1e999", 0, SLV_PARSE_RANGE); /* beyond DBL_MAX */
  refuse_double("-1e999", 0, SLV_PARSE_RANGE);
  refuse_double("1.8e308", 0, SLV_PARSE_RANGE); /* rounds beyond DBL_MAX too */
  /* infinities asked for: spelled, or an overflow (IEEE rounds it to one) */
  accept_double("inf", SLV_PARSE_INF, INFINITY);
  accept_double("-inf", SLV_PARSE_INF, -INFINITY);
  accept_double("infinity", SLV_PARSE_INF, INFINITY);
  accept_double("1e999", SLV_PARSE_INF, INFINITY);
  accept_double("-1e999", SLV_PARSE_INF, -INFINITY);
  refuse_double("infx", SLV_PARSE_INF, SLV_PARSE_TRAILING);
}

/* Every double printed with %.17g reads back to the same bits. */
static void test_round_trip(void) {
  const double v[] = { 0.1, -1.0 / 3.0, 6.02214076e23, 5e-324, DBL_MAX, -DBL_MIN, 1e-300 };
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
    char buf[32];
    double back = 0;
    snprintf(buf, sizeof buf, "%.17g", v[k]);
    CU_ASSERT_EQUAL(slv_parse_double(buf, 0, &back), SLV_PARSE_OK);
    CU_ASSERT(memcmp(&back, &v[k], sizeof back) == 0);
  }
}

static void test_integers(void) {
  long l = 7;
  int i = 7;
  unsigned long u = 7;
  CU_ASSERT(slv_parse_long("-123", &l) == SLV_PARSE_OK && l == -123);
  CU_ASSERT(slv_parse_long("+5", &l) == SLV_PARSE_OK && l == 5);
  CU_ASSERT(slv_parse_long("9223372036854775807", &l) == SLV_PARSE_OK && l == LONG_MAX);
  CU_ASSERT_EQUAL(slv_parse_long("9223372036854775808", &l), SLV_PARSE_RANGE);
  CU_ASSERT_EQUAL(slv_parse_long("-9223372036854775809", &l), SLV_PARSE_RANGE);
  CU_ASSERT_EQUAL(l, LONG_MAX); /* untouched by the refusals */
  CU_ASSERT_EQUAL(slv_parse_long("0x10", &l), SLV_PARSE_TRAILING);
  CU_ASSERT_EQUAL(slv_parse_long("1.0", &l), SLV_PARSE_TRAILING);
  CU_ASSERT_EQUAL(slv_parse_long("1e3", &l), SLV_PARSE_TRAILING);
  CU_ASSERT_EQUAL(slv_parse_long(" 1", &l), SLV_PARSE_BLANK);
  CU_ASSERT_EQUAL(slv_parse_long("", &l), SLV_PARSE_EMPTY);
  CU_ASSERT_EQUAL(slv_parse_long("x1", &l), SLV_PARSE_SYNTAX);
  CU_ASSERT_EQUAL(slv_parse_long("-", &l), SLV_PARSE_SYNTAX);
  CU_ASSERT(slv_parse_int("2147483647", &i) == SLV_PARSE_OK && i == INT_MAX);
  CU_ASSERT(slv_parse_int("-2147483648", &i) == SLV_PARSE_OK && i == INT_MIN);
  CU_ASSERT_EQUAL(slv_parse_int("2147483648", &i), SLV_PARSE_RANGE); /* INT_MAX + 1 */
  CU_ASSERT_EQUAL(slv_parse_int("-2147483649", &i), SLV_PARSE_RANGE);
  CU_ASSERT_EQUAL(i, INT_MIN);
  CU_ASSERT(slv_parse_ulong("18446744073709551615", &u) == SLV_PARSE_OK && u == ULONG_MAX);
  CU_ASSERT_EQUAL(slv_parse_ulong("18446744073709551616", &u), SLV_PARSE_RANGE);
  CU_ASSERT_EQUAL(slv_parse_ulong("-1", &u), SLV_PARSE_RANGE); /* strtoul would wrap it */
  CU_ASSERT_EQUAL(slv_parse_ulong("-x", &u), SLV_PARSE_SYNTAX);
  CU_ASSERT_EQUAL(slv_parse_ulong("1x", &u), SLV_PARSE_TRAILING);
  CU_ASSERT_EQUAL(u, ULONG_MAX);
}

/* A token inside a text: "12 3.5e1x" holds "12", "3.5e1x"; the token "1"
 * of "12" (cut before a digit) is 1, not 12. */
static void test_tokens(void) {
  const char *text = "12 3.5e1x 0.25#c";
  double v = 0;
  long l = 0;
  CU_ASSERT(slv_parse_long_n(text, 2, &l) == SLV_PARSE_OK && l == 12);
  CU_ASSERT(slv_parse_long_n(text, 1, &l) == SLV_PARSE_OK && l == 1);
  CU_ASSERT(slv_parse_double_n(text, 1, 0, &v) == SLV_PARSE_OK && v == 1.0);
  CU_ASSERT(slv_parse_double_n(text + 3, 5, 0, &v) == SLV_PARSE_OK && v == 35.0);
  CU_ASSERT_EQUAL(slv_parse_double_n(text + 3, 6, 0, &v), SLV_PARSE_TRAILING);
  CU_ASSERT(slv_parse_double_n(text + 10, 4, 0, &v) == SLV_PARSE_OK && v == 0.25);
  CU_ASSERT_EQUAL(slv_parse_double_n(text, 0, 0, &v), SLV_PARSE_EMPTY);
}

static void test_texts(void) {
  for (int e = SLV_PARSE_OK; e <= SLV_PARSE_RANGE; e++) {
    const char *t = slv_parse_error_str((slv_parse_error)e);
    CU_ASSERT(t != NULL && t[0] != '\0' && strcmp(t, "unknown parse error") != 0);
  }
  CU_ASSERT_STRING_EQUAL(slv_parse_error_str(SLV_PARSE_TRAILING), "characters after the number");
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("parse", NULL, NULL);
  CU_add_test(s, "doubles: strict, hand cases", test_doubles);
  CU_add_test(s, "doubles: %.17g round trips", test_round_trip);
  CU_add_test(s, "integers: long, int, unsigned long", test_integers);
  CU_add_test(s, "tokens inside a text", test_tokens);
  CU_add_test(s, "every error has a text", test_texts);
  return tst_run();
}
