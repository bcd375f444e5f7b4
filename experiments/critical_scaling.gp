# rho*(eta) against eta d for the four dimensions of experiments/critical_scaling.toml.
#   gnuplot -e "dir='critical-scaling-out'" experiments/critical_scaling.gp
if (!exists("dir")) dir = 'critical-scaling-out'
set terminal pngcairo size 900,600 enhanced font ",11"
set output 'critical_scaling.png'
set datafile separator ','
set logscale x
set xlabel 'eta d'
set ylabel 'effective attractor rho*(eta)'
set key bottom left
set grid
set title 'rho*(eta d) for d = 25, 50, 100, 200 (L = 1000, R = 100, theta = sigma = beta = 1)' noenhanced
plot for [d in "25 50 100 200"] sprintf('%s/d%s/summary.csv', dir, d) \
     using ($1*d):(column("rho_star")):(column("rho_star_err")) with yerrorlines lw 2 title sprintf('d = %s', d)
