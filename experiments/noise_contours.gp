# The noise-mass contours theta_EPS(L) of experiments/noise_contours.toml: for each EPS, the
# bracket [lo, hi] of the theta where the noise mass 1 - E[A_I] at rho = +1 falls to EPS, against
# L (R/L = 0.1), with the mean-field limit's proved bracket as a dashed line (left), and the
# finite-size shift theta_EPS(L) - theta_EPS(limit) on log scales, with its bracket (right).
#   gnuplot -e "dir='noise-contours-out'" experiments/noise_contours.gp   (writes noise_contours.png)
if (!exists("dir")) dir = 'noise-contours-out'
set terminal pngcairo size 1300,520 enhanced font ",11"
set output 'noise_contours.png'
set datafile separator ','
eps = "0.85 0.89"
array lim[words(eps)]
do for [i = 1:words(eps)] {
    stats sprintf('%s/limit%s/summary.csv', dir, word(eps, i)) using ((column("theta lo") + column("theta hi")) / 2) nooutput
    lim[i] = STATS_mean
}
file(i) = sprintf('%s/eps%s/summary.csv', dir, word(eps, i))
mid(x) = (column("theta lo") + column("theta hi")) / 2
set multiplot layout 1,2 title 'Noise-mass contours at finite L against the limit (d = 50, R/L = 0.1, sigma = beta = 1)' noenhanced
set logscale x
set format x '10^{%L}'
set xrange [50:2e6]
set xlabel 'L (R = L/10)'
set ylabel 'theta_{EPS}: the noise mass at rho = 1 is EPS'
set key top right
set grid
plot for [i = 1:words(eps)] file(i) using (column("L")):(mid(0)):(column("theta lo")):(column("theta hi")) \
         with yerrorlines lw 2 lc i title sprintf('EPS = %s', word(eps, i)), \
     for [i = 1:words(eps)] lim[i] with lines dt 2 lc i title sprintf('limit, EPS = %s', word(eps, i))
set logscale y
set format y '10^{%L}'
set ylabel 'theta_{EPS}(L) - theta_{EPS}(limit)'
set key bottom left
plot for [i = 1:words(eps)] file(i) using (column("L")):(mid(0) - lim[i]):(column("theta lo") - lim[i]):(column("theta hi") - lim[i]) \
         with yerrorlines lw 2 lc i title sprintf('EPS = %s', word(eps, i)), \
     1.0 / x with lines dt 3 lc black title '1/L'
unset multiplot
