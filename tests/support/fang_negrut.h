/* The settings that the experiments of Fang & Negrut Sec. 4 share (the
 * brick, disk, stack, ellipsoid and spinning-sphere tests): gravity, the
 * static and kinetic coefficients of Tables 2 to 7, the step. Each test's
 * own body and stiffness stay in its file. */
#ifndef FD_TESTS_FANG_NEGRUT_H
#define FD_TESTS_FANG_NEGRUT_H

#define FN_G 9.8       /* m/s^2, as the paper's figures use */
#define FN_MU_S 0.25   /* static coefficient, every mechanism */
#define FN_MU_K 0.2    /* kinetic coefficient, every mechanism */
#define FN_DT 1e-4     /* s */
#define FN_PI 3.14159265358979323846
#define FN_EULER_E 2.71828182845904523536

#endif
