// kind: idle
// change: ready_add is low only right after a result, when count is already 0, so the count==3 clear is the natural 2-bit wrap and data_out needs no hold mux, and data_out (only observed under valid_out) loses its reset and the unused duplicate data_out_reg goes; Yosys cannot derive these reachability facts.
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
    data_out <= first ? {2'b0, data_in} : data_out + {2'b0, data_in};
endmodule
