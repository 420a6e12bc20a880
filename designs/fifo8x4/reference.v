// Reference for fifo8x4: circular buffer with 2-bit pointers and a 3-bit occupancy count.
module fifo8x4 (
    input            clk,
    input            rst,
    input            wr_en,
    input      [7:0] wr_data,
    input            rd_en,
    output reg [7:0] rd_data,
    output           full,
    output           empty,
    output reg [2:0] count
);
    reg [7:0] mem [0:3];
    reg [1:0] wr_ptr, rd_ptr;
    wire do_wr = wr_en && !full;
    wire do_rd = rd_en && !empty;

    always @(posedge clk) begin
        if (rst) begin
            wr_ptr <= 2'd0; rd_ptr <= 2'd0; count <= 3'd0; rd_data <= 8'd0;
        end else begin
            if (do_wr) begin
                mem[wr_ptr] <= wr_data;
                wr_ptr <= wr_ptr + 2'd1;
            end
            if (do_rd) begin
                rd_data <= mem[rd_ptr];
                rd_ptr <= rd_ptr + 2'd1;
            end
            count <= count + {2'd0, do_wr} - {2'd0, do_rd};
        end
    end

    assign full  = (count == 3'd4);
    assign empty = (count == 3'd0);
endmodule
