// Preloaded (`node --require`) into every process the import bench times: at exit, prints the
// CPU time the process used (user + system, all its threads), which a busy neighbour on the
// machine does not inflate as it does the wall-clock time.
process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  process.stderr.write(`\nbench-cpu-us ${user + system}\n`);
});
