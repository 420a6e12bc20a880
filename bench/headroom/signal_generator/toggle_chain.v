// kind: share
// change: the up/down counter becomes one toggle chain on e = wave ^ {5{dir}} (bit i flips when e[i-1:0] are all ones, the end is &e) and the never-set state[1] is dropped, since synthesis keeps an incrementer, a decrementer and two end comparators.
module signal_generator(
  input clk,
  input rst_n,
  output reg [4:0] wave
);

  reg dir;   // state[0] of the reference; state[1] is never set

  wire [4:0] e = wave ^ {5{dir}};
  wire [4:0] t = {&e[3:0], &e[2:0], &e[1:0], e[0], 1'b1};

  always @(posedge clk or negedge rst_n) begin
    if (~rst_n) begin
      dir <= 1'b0;
      wave <= 5'b0;
    end
    else if (&e)
      dir <= ~dir;
    else
      wave <= wave ^ t;
  end

endmodule
