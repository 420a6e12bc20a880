// kind: encoding
// change: the one-hot FSM is exactly 'which suffix of 1001 was seen', so it becomes four history flags each set by one AND from the previous flag and data_in, with the output taken straight from the 1001 flag; the redundant rst_n term of next_state goes; Yosys does not find this encoding.
module sequence_detector(
     input  clk,
     input  rst_n,
     input  data_in,
     output sequence_detected
     );
reg a, b, c, d;
always @(posedge clk or negedge rst_n)
    if (!rst_n) {a, b, c, d} <= 4'b0;
    else begin
        a <= data_in;
        b <= a & ~data_in;
        c <= b & ~data_in;
        d <= c & data_in;
    end
assign sequence_detected = d;
endmodule
