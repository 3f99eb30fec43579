/*
 * sim_math.h - the few transcendental functions the simulator's traffic
 * needs (ln for exponential gaps, exp for Zipf weights, sin for the diurnal
 * rate), written with IEEE-754 double basic operations only, so their
 * results are bit-identical on every IEEE-754 machine (libm's versions may
 * differ in the last bit between libraries). Relative error below 1e-15 on
 * the documented domains: ample for traffic shapes, and no decision or
 * event order depends on more.
 */
#ifndef RATELAB_SIM_MATH_H
#define RATELAB_SIM_MATH_H

/* Natural logarithm; x > 0 and finite. */
double sim_ln(double x);

/* e^x for -700 <= x <= 700. */
double sim_exp(double x);

/* sin(2 * pi * turns) for 0 <= turns < 1. */
double sim_sin_turns(double turns);

#endif
