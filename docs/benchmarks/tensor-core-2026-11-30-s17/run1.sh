# Session 17 run 1: where wgmma_tma_tf32_rb loses against cuBLAS TF32 at 4096³ (ncu), and what cuBLAS launches.
set -x
D=.device-bundle-hopper; B=$D/run.sh
nvidia-smi > $OUT/smi.txt 2>&1
SEC="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats --section InstructionStats"
MET="--metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_gmma.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,lts__t_bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,launch__cluster_dim_x,launch__cluster_dim_y,gpu__time_duration.sum"
timeout 150 ncu --target-processes all --clock-control none --csv --page details $SEC $MET -k regex:wgmma_tma_tf32_rb -c 1 $B bench-tc --kernels wgmma_tma_tf32_rb --sizes 4096 > $OUT/ncu-rb-4096.csv 2> $OUT/ncu-rb-4096.err
timeout 120 ncu --target-processes all --clock-control none --csv --page details $SEC $MET -k regex:"gemm|nvjet|xmma|cutlass|sm90" -c 6 python3 $D/cublas-4096.py > $OUT/ncu-cublas-4096.csv 2> $OUT/ncu-cublas-4096.err
ls -la $OUT
