# fig_seed: regenerate with `gnuplot fig_seed.gp` in this directory.
# rhoflow 0.1.0, commit COMMIT
# command line: rhoflow compare --out c --quiet
# date: 2025-12-01T00:00:00Z
set encoding utf8
reset
set terminal pngcairo size 510,383 enhanced font 'sans,8'
set minussign
set output 'fig_seed.png'
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set bmargin at screen 0.1708
set tmargin at screen 0.9706
set grid
set xrange [-1000:21000]
set xtics ('0' 0, '5000' 5000, '10000' 10000, '15000' 15000, '20000' 20000)
set yrange [0:1.02]
set ytics 0, 0.2, 1
set xlabel 'step k'
set ylabel '|⟨q_k, ξ⟩|'
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 1 samplen 2 spacing 1.05 reverse Left width -2
plot for [i=4:33] 'fig_seed.dat' using 1:i with lines lw 1 lc rgb '#4292c6' title (i == 4 ? 'each of 30 trials' : ''), '' using 1:3 with lines lw 2.5 dt 2 lc rgb '#a50f15' title 'mean-field ODE at t_k'

unset output
reset
set terminal pdfcairo size 3.400in,2.550in enhanced font 'sans,8'
set minussign
set output 'fig_seed.pdf'
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set bmargin at screen 0.1708
set tmargin at screen 0.9706
set grid
set xrange [-1000:21000]
set xtics ('0' 0, '5000' 5000, '10000' 10000, '15000' 15000, '20000' 20000)
set yrange [0:1.02]
set ytics 0, 0.2, 1
set xlabel 'step k'
set ylabel '|⟨q_k, ξ⟩|'
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 1 samplen 2 spacing 1.05 reverse Left width -2
plot for [i=4:33] 'fig_seed.dat' using 1:i with lines lw 1 lc rgb '#4292c6' title (i == 4 ? 'each of 30 trials' : ''), '' using 1:3 with lines lw 2.5 dt 2 lc rgb '#a50f15' title 'mean-field ODE at t_k'

unset output
reset
set terminal svg size 245,184 enhanced font 'sans,8' background rgb 'white'
set minussign
set output 'fig_seed.svg'
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set bmargin at screen 0.1708
set tmargin at screen 0.9706
set grid
set xrange [-1000:21000]
set xtics ('0' 0, '5000' 5000, '10000' 10000, '15000' 15000, '20000' 20000)
set yrange [0:1.02]
set ytics 0, 0.2, 1
set xlabel 'step k'
set ylabel '|⟨q_k, ξ⟩|'
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 1 samplen 2 spacing 1.05 reverse Left width -2
plot for [i=4:33] 'fig_seed.dat' using 1:i with lines lw 1 lc rgb '#4292c6' title (i == 4 ? 'each of 30 trials' : ''), '' using 1:3 with lines lw 2.5 dt 2 lc rgb '#a50f15' title 'mean-field ODE at t_k'

unset output
reset
set terminal cairolatex pdf size 3.400in,2.550in color font ',8' header '\footnotesize'
set output 'fig_seed-latex.tex'
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set bmargin at screen 0.2237
set tmargin at screen 0.9706
set grid
set xrange [-1000:21000]
set xtics ('$0$' 0, '$5000$' 5000, '$10000$' 10000, '$15000$' 15000, '$20000$' 20000)
set yrange [0:1.02]
set ytics 0, 0.2, 1
set xlabel 'step $k$'
set ylabel '$|\langle q_k, \xi\rangle|$'
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 1 samplen 2 spacing 1.05 reverse Left width -2
plot for [i=4:33] 'fig_seed.dat' using 1:i with lines lw 1 lc rgb '#4292c6' title (i == 4 ? 'each of 30 trials' : ''), '' using 1:3 with lines lw 2.5 dt 2 lc rgb '#a50f15' title 'mean-field ODE at $t_k$'

unset output
