read_liberty ${lib}
read_verilog ${netlist}
link_design ${top}
${parasitics}
set clock_port {${clock}}
if {$$clock_port eq ""} {
  # no input is named like a clock: flip-flops clocked from inputs name theirs (else they go untimed), straight
  # or through inverters and buffers (a negedge flip-flop's clock is an inverted input in most libraries)
  set from_regs {}
  foreach pin [all_registers -edge_triggered -clock_pins] {
    if {[catch {set net [get_nets -of_objects $$pin]}]} { continue }
    for {set i 0} {$$i < 4 && [get_ports -quiet [get_full_name $$net]] eq ""} {incr i} {
      set drv [get_pins -quiet -of_objects $$net -filter "direction == output"]
      if {[llength $$drv] != 1} { break }
      set ins [get_pins -of_objects [get_cells -of_objects $$drv] -filter "direction == input"]
      if {[llength $$ins] != 1 || [catch {set net [get_nets -of_objects $$ins]}]} { break }
    }
    if {[get_ports -quiet [get_full_name $$net]] ne ""} { lappend from_regs [get_full_name $$net] }
  }
  set clock_port [lsort -unique $$from_regs]
  if {$$clock_port ne ""} { puts "@@CLOCKS $$clock_port" }
}
if {$$clock_port ne ""} {
  create_clock -name clk -period ${period} [get_ports $$clock_port]
  set_input_delay 0 -clock clk [delete_from_list [all_inputs] [get_ports $$clock_port]]
} else {
  create_clock -name clk -period ${period}
  set_input_delay 0 -clock clk [all_inputs]
}
set_output_delay 0 -clock clk [all_outputs]
${propagated}
puts "@@CHECKS"
report_checks -path_delay max -digits 4 -fields {input_pins}
# after report_checks: loops are found when the graph is levelized
puts "@@SETUP"
puts "@@REGISTERS [llength [all_registers -clock_pins]]"
check_setup -verbose -no_clock -unconstrained_endpoints -loops
puts "@@WNS"
report_wns -digits 4
puts "@@TNS"
report_tns -digits 4
puts "@@POWER"
if {[catch {report_power -digits 6} err]} {
  # OpenSTA 2.0's activity propagation can end in NaN on a large design (picorv32): every net at one activity
  puts "@@POWER_FALLBACK $$err"
  set_power_activity -global -activity 0.1
  report_power -digits 6
}
exit
