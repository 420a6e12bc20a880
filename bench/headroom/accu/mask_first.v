// kind: idle
// change: as no_hold but the first-of-four load is written as masking the accumulator to zero before one adder (AND instead of a mux after the adder); data_out only counts under valid_out so it needs no reset or hold, which Yosys cannot know.
module accu(
    input               clk         ,
    input               rst_n       ,
    input       [7:0]   data_in     ,
    input               valid_in     ,
    output  reg         valid_out     ,
    output  reg [9:0]   data_out
);
reg [1:0] count;
wire ready_add = !valid_out | valid_in;
always @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
        count <= 2'd0;
        valid_out <= 1'b0;
    end else begin
        if (ready_add) count <= count + 2'd1;
        valid_out <= ready_add & (count == 2'd3);
    end
end
wire first = ~(count[0] | count[1]);
always @(posedge clk)
    data_out <= (data_out & {10{~first}}) + {2'b0, data_in};
endmodule
